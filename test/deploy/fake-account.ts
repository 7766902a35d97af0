/**
 * A Cloudflare account as `wrangler` shows it to scripts/deploy.mjs, in memory: D1 databases, KV
 * namespaces, queues, R2 buckets, Workers with their secrets. It answers the commands the deploy runs and
 * refuses what Cloudflare refuses: a deploy whose service binding names a Worker that does not exist
 * (code 10143), a secret listing of an absent Worker (10007), a create of what exists.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Wrangler, WranglerResult } from "../../scripts/deploy.mjs";

export interface DeployCall {
  worker: string;
  config: string;
  secretNames: string[];
  secretValues: string[];
  stub: boolean;
}

export class FakeAccount {
  d1: { name: string; uuid: string }[] = [];
  kv: { title: string; id: string }[] = [];
  queues = new Set<string>();
  buckets = new Set<string>();
  workers = new Map<string, { secrets: Set<string>; versions: number }>();
  calls: string[][] = [];
  deploys: DeployCall[] = [];
  /** The databases each `d1 migrations apply` named, in order. */
  migrations: string[] = [];
  /** Per database, the migration files applied so far (what wrangler's `d1_migrations` table records). */
  appliedFiles = new Map<string, string[]>();
  /** `database/file` of every migration file applied, in order (a re-run applies none). */
  applications: string[] = [];
  created: string[] = [];
  private counter = 0;

  private id(): string {
    this.counter += 1;
    return `${this.counter}`.padStart(32, "0");
  }

  wrangler: Wrangler = async (args) => {
    this.calls.push(args);
    return this.answer(args);
  };

  private answer(args: string[]): WranglerResult {
    const ok = (stdout = ""): WranglerResult => ({ code: 0, stdout, stderr: "" });
    const fail = (stderr: string): WranglerResult => ({ code: 1, stdout: "", stderr });
    const [a, b, c, d] = args;
    const key = `${a} ${b ?? ""}`.trim();
    if (a === "whoami") return ok("You are logged in.");
    if (key === "d1 list") return ok(JSON.stringify(this.d1));
    if (key === "d1 create") {
      if (this.d1.some((db) => db.name === c)) return fail("A database with that name already exists");
      this.d1.push({ name: c!, uuid: this.id() });
      this.created.push(`d1:${c}`);
      return ok();
    }
    if (key === "kv namespace" && c === "list") return ok(JSON.stringify(this.kv));
    if (key === "kv namespace" && c === "create") {
      if (this.kv.some((ns) => ns.title === d))
        return fail("a namespace with this title already exists [code: 10014]");
      this.kv.push({ title: d!, id: this.id() });
      this.created.push(`kv:${d}`);
      return ok();
    }
    if (key === "queues info")
      return this.queues.has(c!) ? ok(`Queue Name: ${c}`) : fail(`Queue "${c}" not found`);
    if (key === "queues create") {
      if (this.queues.has(c!)) return fail("A queue with this name already exists [code: 11009]");
      this.queues.add(c!);
      this.created.push(`queue:${c}`);
      return ok();
    }
    if (key === "r2 bucket" && c === "info")
      return this.buckets.has(d!) ? ok("name: media") : fail("The specified bucket does not exist.");
    if (key === "r2 bucket" && c === "create") {
      this.buckets.add(d!);
      this.created.push(`r2:${d}`);
      return ok();
    }
    if (key === "d1 migrations") {
      if (!this.d1.some((db) => db.name === d)) return fail(`Couldn't find DB with name '${d}'`);
      this.migrations.push(d!);
      // As wrangler does: the files of the config's migrations_dir this database has not applied yet.
      const { file, config } = this.configOf(args);
      const entry = (config.d1_databases as { database_name: string; migrations_dir: string }[]).find(
        (db) => db.database_name === d,
      );
      if (!entry) return fail(`no [[d1_databases]] named ${d} in ${file}`);
      const dir = path.resolve(path.dirname(file), entry.migrations_dir);
      const applied = this.appliedFiles.get(d!) ?? [];
      for (const sql of readdirSync(dir)
        .filter((f) => f.endsWith(".sql"))
        .sort()) {
        if (applied.includes(sql)) continue;
        applied.push(sql);
        this.applications.push(`${d}/${sql}`);
      }
      this.appliedFiles.set(d!, applied);
      return ok();
    }
    if (key === "secret list") {
      const name = this.configName(args);
      const worker = this.workers.get(name);
      if (!worker) return fail("This Worker does not exist on your account. [code: 10007]");
      return ok(JSON.stringify([...worker.secrets].map((s) => ({ name: s, type: "secret_text" }))));
    }
    if (a === "deploy") return this.deploy(args);
    return fail(`fake account: unexpected command ${args.join(" ")}`);
  }

  private configOf(args: string[]) {
    const file = args[args.indexOf("-c") + 1]!;
    return { file, config: JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> };
  }

  private configName(args: string[]): string {
    return this.configOf(args).config.name as string;
  }

  private deploy(args: string[]): WranglerResult {
    const { file, config } = this.configOf(args);
    const name = config.name as string;
    for (const s of (config.services as { binding: string; service: string }[] | undefined) ?? []) {
      if (!this.workers.has(s.service)) {
        return {
          code: 1,
          stdout: "",
          stderr: `Service binding '${s.binding}' references Worker '${s.service}' which was not found. [code: 10143]`,
        };
      }
    }
    const at = args.indexOf("--secrets-file");
    const secrets: Record<string, string> = at >= 0 ? JSON.parse(readFileSync(args[at + 1]!, "utf8")) : {};
    const worker = this.workers.get(name) ?? { secrets: new Set<string>(), versions: 0 };
    for (const k of Object.keys(secrets)) worker.secrets.add(k);
    worker.versions += 1;
    this.workers.set(name, worker);
    this.deploys.push({
      worker: name,
      config: file,
      secretNames: Object.keys(secrets),
      secretValues: Object.values(secrets),
      stub: !config.vars,
    });
    return { code: 0, stdout: `Uploaded ${name}`, stderr: "" };
  }
}
