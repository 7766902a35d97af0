/**
 * `npm run deploy` (scripts/deploy.mjs) against an in-memory account (fake-account.ts), and the generated
 * production configs: a first deploy creates every resource, applies the migrations before any code,
 * deploys the services before the gateway (a stub first where a binding target does not exist yet) and
 * generates the secrets once; a second deploy creates nothing and generates nothing; no secret reaches the
 * log; the committed configs set no development flag and the generated ones open no service to the internet.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allDatabases, serviceDatabases } from "../../scripts/databases.mjs";
import { deploy } from "../../scripts/deploy.mjs";
import {
  configProblems,
  DEPLOY_ORDER,
  DEV_ONLY_VARS,
  EXAMPLE_SETTINGS,
  placeholderIds,
  productionConfig,
  readConfig,
  readSettings,
  resources,
  SECRETS,
  SHARED_SECRETS,
  settingsProblems,
  type WorkerConfigs,
} from "../../scripts/deploy-config.mjs";
import { migrationFiles } from "../../scripts/migrate.mjs";
import { FakeAccount } from "./fake-account.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "deploy-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The example settings with its example.com values replaced: what a deployer writes. */
function realSettingsFile(): string {
  const text = readFileSync(EXAMPLE_SETTINGS, "utf8").replaceAll("example.com", "platform.test");
  const file = path.join(tempDir(), "production.json");
  writeFileSync(file, text);
  return file;
}

/**
 * Content's committed config with `edit` applied to its text, written elsewhere (its relative paths made
 * absolute): what an operator's change to workers/content/wrangler.toml would be.
 */
function contentConfigWith(edit: (text: string) => string): string {
  const text = readFileSync(path.resolve("workers/content/wrangler.toml"), "utf8").replaceAll(
    '"../../',
    `"${path.resolve(".")}/`,
  );
  const file = path.join(tempDir(), "wrangler.toml");
  writeFileSync(file, edit(text));
  return file;
}

/** A third group, as docs/operations.md says to add one: its binding and its name in CONTENT_GROUPS. */
function withThirdGroup(text: string): string {
  return `${text.replace('CONTENT_GROUPS = "g000,g001"', 'CONTENT_GROUPS = "g000,g001,g002"')}
[[d1_databases]]
binding = "DB_G002"
database_name = "content-g002"
database_id = "content-g002"
migrations_dir = "${path.resolve("migrations/content")}"
`;
}

/** Calls the deploy made to Cloudflare's REST API (what wrangler has no command for). */
const apiCalls: { url: string; method: string; body: string; authorization: string | undefined }[] = [];

async function run(account: FakeAccount, env: Record<string, string> = {}, configs: WorkerConfigs = {}) {
  const lines: string[] = [];
  const outDir = tempDir();
  await deploy({
    configs,
    settingsFile: realSettingsFile(),
    wrangler: account.wrangler,
    env,
    log: (line) => lines.push(line),
    outDir,
    api: async (url, init) => {
      apiCalls.push({ url, method: init.method, body: init.body, authorization: init.headers.authorization });
      return new Response(JSON.stringify({ success: true }), { status: 200 });
    },
  });
  return { lines, outDir };
}

describe("the committed wrangler configs", () => {
  it("set no development-only var (DEV_*, TEST_*), in any environment", () => {
    for (const name of DEPLOY_ORDER) {
      const { raw } = readConfig(name);
      const envs = Object.values((raw.env ?? {}) as Record<string, { vars?: Record<string, string> }>);
      for (const vars of [raw.vars ?? {}, ...envs.map((e) => e.vars ?? {})]) {
        const flags = Object.keys(vars).filter((k) => DEV_ONLY_VARS.test(k));
        expect(flags, `${name} sets ${flags.join(", ")}`).toEqual([]);
      }
    }
  });

  it("give every queue consumer a dead-letter queue (except the dead-letter consumers themselves)", () => {
    for (const name of DEPLOY_ORDER) {
      for (const consumer of readConfig(name).raw.queues?.consumers ?? []) {
        if (consumer.queue.endsWith("-dlq")) continue;
        expect(consumer.dead_letter_queue, `${name} consumer of ${consumer.queue}`).toBe(
          `${consumer.queue}-dlq`,
        );
      }
    }
    expect(resources().queues).toEqual(
      expect.arrayContaining([
        "media-variants-dlq",
        "site-transferred-dlq",
        "image-swap-dlq",
        "site-sync-dlq",
      ]),
    );
  });
});

describe("the generated production configs", () => {
  const settings = readSettings(EXAMPLE_SETTINGS);
  const ids = placeholderIds();

  it("carry the production vars, no development flag and no local address", () => {
    for (const name of DEPLOY_ORDER) {
      const config = productionConfig(name, { settings, ids, outDir: tempDir() });
      for (const [key, value] of Object.entries(config.vars as Record<string, string>)) {
        expect(DEV_ONLY_VARS.test(key), `${name}.${key}`).toBe(false);
        expect(value, `${name}.${key}`).not.toMatch(/localhost|127\.0\.0\.1/);
      }
      for (const [key, value] of Object.entries(settings.workers?.[name]?.vars ?? {})) {
        expect(config.vars[key]).toBe(value);
      }
    }
  });

  it("give the services no public URL, content the public paths of the gateway's hosts, the gateway its routes", () => {
    for (const name of ["identity", "content", "sites"] as const) {
      const config = productionConfig(name, { settings, ids, outDir: tempDir() });
      expect(config.workers_dev).toBe(false);
      expect(config.preview_urls).toBe(false);
      if (name === "content") {
        expect(config.routes).toEqual(["api.example.com/v1/*", "api.example.com/media/*"]);
      } else {
        expect(config.routes).toBeUndefined();
      }
    }
    const gateway = productionConfig("gateway", { settings, ids, outDir: tempDir() });
    expect(gateway.routes).toEqual(settings.workers?.gateway?.routes);
    expect(gateway.workers_dev).toBe(false);
  });

  it("name the real resource ids and keep paths valid from where they are written", () => {
    const outDir = tempDir();
    const content = productionConfig("content", { settings, ids, outDir });
    // Content's site groups and their directory, each with its id and its migrations.
    const byBinding = Object.fromEntries(
      (content.d1_databases as { binding: string; database_id: string; migrations_dir: string }[]).map(
        (db) => [db.binding, db],
      ),
    );
    expect(Object.keys(byBinding).sort()).toEqual(["DB_G000", "DB_G001", "DIRECTORY"]);
    for (const [binding, name, migrations] of [
      ["DB_G000", "content-g000", "migrations/content"],
      ["DB_G001", "content-g001", "migrations/content"],
      ["DIRECTORY", "content-directory", "migrations/content-directory"],
    ] as const) {
      expect(byBinding[binding]!.database_id).toBe(ids.d1[name]);
      expect(path.resolve(outDir, byBinding[binding]!.migrations_dir)).toBe(path.resolve(migrations));
    }
    expect(content.vars.CONTENT_GROUPS).toBe("g000,g001");
    expect(content.kv_namespaces[0].id).toBe(ids.kv["content-cache"]);
    expect(path.resolve(outDir, content.main)).toBe(path.resolve("src/content/index.ts"));
    for (const name of DEPLOY_ORDER) {
      const { assets } = productionConfig(name, { settings, ids, outDir });
      expect(path.resolve(outDir, assets.directory), `${name} assets`).toBe(
        path.resolve("node_modules/@scalar/api-reference/dist/browser"),
      );
    }
    expect(() => productionConfig("content", { settings, ids: { d1: {}, kv: {} }, outDir })).toThrow(/no id/);
  });

  it("are refused for a real deploy with the example's values or a local address", () => {
    expect(settingsProblems(settings).join("\n")).toMatch(/example's value/);
    expect(settingsProblems(settings, { allowExample: true })).toEqual([]);
    const local = structuredClone(settings);
    local.workers!.identity!.vars!.ISSUER = "http://localhost:8787";
    expect(settingsProblems(local, { allowExample: true }).join("\n")).toMatch(/ISSUER .* local address/);
    const flagged = structuredClone(settings);
    flagged.workers!.identity!.vars!.DEV_OUTBOX = "true";
    expect(settingsProblems(flagged, { allowExample: true }).join("\n")).toMatch(
      /DEV_OUTBOX is development-only/,
    );
  });
});

describe("npm run deploy", () => {
  it("switches D1 read replication on for every content group with the deployer's token, else says how", async () => {
    apiCalls.length = 0;
    const account = new FakeAccount();
    const { lines, outDir } = await run(account, {
      CLOUDFLARE_API_TOKEN: "token-value",
      CLOUDFLARE_ACCOUNT_ID: "account-1",
    });
    const ids = JSON.parse(readFileSync(path.join(outDir, "resources.json"), "utf8"));
    expect(apiCalls).toEqual(
      ["content-g000", "content-g001"].map((name) => ({
        url: `https://api.cloudflare.com/client/v4/accounts/account-1/d1/database/${ids.d1[name]}`,
        method: "PUT",
        body: JSON.stringify({ read_replication: { mode: "auto" } }),
        authorization: "Bearer token-value",
      })),
    );
    expect(lines).toContain("  content-g000: read replication auto");
    expect(lines).toContain("  content-g001: read replication auto");
    apiCalls.length = 0;
    const without = await run(new FakeAccount());
    expect(apiCalls).toEqual([]);
    expect(without.lines.join("\n")).toMatch(
      /content-g001: not switched on here .*\n.*curl -X PUT .*read_replication/,
    );
  });

  it("refuses the example settings before touching the account", async () => {
    const account = new FakeAccount();
    await expect(
      deploy({
        settingsFile: EXAMPLE_SETTINGS,
        wrangler: account.wrangler,
        log: () => {},
        outDir: tempDir(),
      }),
    ).rejects.toThrow(/not ready for production/);
    expect(account.calls).toEqual([]);
  });

  it("on a new account: every resource, migrations first, services (with a stub) before the gateway, secrets once", async () => {
    const account = new FakeAccount();
    const { lines, outDir } = await run(account, { PAGE_PURGE_TOKEN: "purge-token-value" });

    const wanted = resources();
    expect(account.d1.map((d) => d.name).sort()).toEqual([...wanted.d1].sort());
    expect(account.kv.map((k) => k.title).sort()).toEqual([...wanted.kv].sort());
    expect([...account.queues].sort()).toEqual([...wanted.queues].sort());
    expect([...account.buckets]).toEqual(wanted.r2);

    // Migrations before the first upload of any code.
    const firstDeploy = account.calls.findIndex((c) => c[0] === "deploy");
    const lastMigration = account.calls.map((c) => c.slice(0, 2).join(" ")).lastIndexOf("d1 migrations");
    expect(lastMigration).toBeLessThan(firstDeploy);
    expect(account.migrations.sort()).toEqual([
      "content-directory",
      "content-g000",
      "content-g001",
      "identity",
      "sites",
    ]);
    // Every migration file of each database's own folder: the groups content's, the directory its own.
    expect(account.appliedFiles.get("content-g000")).toEqual(migrationFiles("content"));
    expect(account.appliedFiles.get("content-g001")).toEqual(migrationFiles("content"));
    expect(account.appliedFiles.get("content-directory")).toEqual(migrationFiles("content-directory"));
    for (const c of account.calls.filter((c) => c[1] === "migrations")) expect(c).toContain("--remote");

    // identity binds sites, which does not exist yet: a stub of sites, then the real Workers in order.
    expect(account.deploys.map((d) => `${d.worker}${d.stub ? " (stub)" : ""}`)).toEqual([
      "sites (stub)",
      "identity",
      "content",
      "sites",
      "gateway",
    ]);
    const real = account.deploys.filter((d) => !d.stub);
    for (const name of DEPLOY_ORDER) {
      const d = real.find((x) => x.worker === name)!;
      const generated = Object.keys(SECRETS[name].generated);
      const provided = SECRETS[name].provided.filter((k) => k === "PAGE_PURGE_TOKEN");
      const shared = Object.keys(SHARED_SECRETS).filter((k) => SHARED_SECRETS[k]!.workers.includes(name));
      expect(d.secretNames.sort()).toEqual([...generated, ...shared, ...provided].sort());
      // The deployed config is the generated one, with the account's ids.
      const config = JSON.parse(readFileSync(d.config, "utf8"));
      expect(path.dirname(d.config)).toBe(outDir);
      for (const db of config.d1_databases ?? []) {
        expect(db.database_id).toBe(account.d1.find((x) => x.name === db.database_name)!.uuid);
      }
    }
    // No secret value is ever printed.
    const printed = lines.join("\n");
    for (const d of account.deploys) for (const value of d.secretValues) expect(printed).not.toContain(value);
    expect(printed).toMatch(/Not set .*identity: MAIL_PROVIDER_TOKEN/);
  });

  it("gives every Worker the same shared secret, and all of them a fresh one when one Worker lost it", async () => {
    const account = new FakeAccount();
    await run(account);
    const sharedValue = (key: string) => {
      const values = account.deploys
        .filter((d) => !d.stub)
        .map((d) => d.secretValues[d.secretNames.indexOf(key)]);
      return values;
    };
    for (const [key, { workers }] of Object.entries(SHARED_SECRETS)) {
      const values = sharedValue(key);
      expect(values).toHaveLength(workers.length);
      expect(new Set(values).size).toBe(1);
      expect(values[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }

    // A Worker without it (its secret deleted by hand): its copy cannot be read back from the others,
    // so all four get one new value together; the other generated secrets are never regenerated.
    const first = sharedValue("EDGE_HMAC_SECRET")[0];
    account.workers.get("sites")!.secrets.delete("EDGE_HMAC_SECRET");
    account.deploys = [];
    await run(account);
    for (const d of account.deploys) expect(d.secretNames).toEqual(["EDGE_HMAC_SECRET"]);
    const again = sharedValue("EDGE_HMAC_SECRET");
    expect(again).toHaveLength(4);
    expect(new Set(again).size).toBe(1);
    expect(again[0]).not.toBe(first);
  });

  it("run again: finds everything, creates nothing, keeps the generated secrets", async () => {
    const account = new FakeAccount();
    await run(account);
    expect(account.created.filter((c) => c.startsWith("d1:")).sort()).toEqual([
      "d1:content-directory",
      "d1:content-g000",
      "d1:content-g001",
      "d1:identity",
      "d1:sites",
    ]);
    const secretsAfterFirst = new Map([...account.workers].map(([k, w]) => [k, [...w.secrets].sort()]));
    account.created = [];
    account.deploys = [];

    account.applications = [];
    await run(account);
    expect(account.created).toEqual([]);
    // Every database is asked again, none applies anything.
    expect(account.applications).toEqual([]);
    expect(account.deploys.map((d) => d.worker)).toEqual([...DEPLOY_ORDER]);
    for (const d of account.deploys) expect(d.secretNames).toEqual([]);
    expect(new Map([...account.workers].map(([k, w]) => [k, [...w.secrets].sort()]))).toEqual(
      secretsAfterFirst,
    );
  });

  it("stops when the secrets of a Worker cannot be listed (never regenerates them blindly)", async () => {
    const account = new FakeAccount();
    await run(account);
    const broken = account.wrangler;
    account.wrangler = async (args, options) =>
      args[0] === "secret"
        ? { code: 1, stdout: "", stderr: "Authentication error [code: 10000]" }
        : broken(args, options);
    account.deploys = [];
    await expect(run(account)).rejects.toThrow(/listing the secrets of (sites|identity) failed/);
    expect(account.deploys).toEqual([]);
  });

  it("a group added to content's config: the next deploy creates and migrates only its database, and reads it replicated", async () => {
    const account = new FakeAccount();
    await run(account);
    account.created = [];
    account.applications = [];
    account.deploys = [];
    apiCalls.length = 0;
    const content = contentConfigWith(withThirdGroup);
    const { outDir } = await run(
      account,
      { CLOUDFLARE_API_TOKEN: "token-value", CLOUDFLARE_ACCOUNT_ID: "account-1" },
      { content },
    );
    expect(account.created).toEqual(["d1:content-g002"]);
    expect(account.applications).toEqual(migrationFiles("content").map((f) => `content-g002/${f}`));
    const ids = JSON.parse(readFileSync(path.join(outDir, "resources.json"), "utf8"));
    expect(apiCalls.map((c) => c.url)).toContain(
      `https://api.cloudflare.com/client/v4/accounts/account-1/d1/database/${ids.d1["content-g002"]}`,
    );
    // The deployed content Worker binds it and lists it.
    const deployed = account.deploys.find((d) => d.worker === "content" && !d.stub)!;
    const config = JSON.parse(readFileSync(deployed.config, "utf8"));
    expect(config.vars.CONTENT_GROUPS).toBe("g000,g001,g002");
    expect(config.d1_databases.find((db: { binding: string }) => db.binding === "DB_G002")).toMatchObject({
      database_name: "content-g002",
      database_id: account.d1.find((db) => db.name === "content-g002")!.uuid,
    });
    // And once more: nothing new.
    account.created = [];
    account.applications = [];
    await run(account, {}, { content });
    expect(account.created).toEqual([]);
    expect(account.applications).toEqual([]);
  });

  it("refuses a content config whose groups and bindings disagree, before touching the account", async () => {
    const cases: [string, (text: string) => string, RegExp][] = [
      [
        "a listed group without its binding",
        (t) => t.replace('CONTENT_GROUPS = "g000,g001"', 'CONTENT_GROUPS = "g000,g001,g002"'),
        /group g002 has no \[\[d1_databases\]\] binding DB_G002/,
      ],
      [
        "a bound group that is not listed",
        (t) => withThirdGroup(t).replace('"g000,g001,g002"', '"g000,g001"'),
        /DB_G002 is bound but CONTENT_GROUPS does not list g002/,
      ],
      [
        "a group on the wrong migrations",
        (t) =>
          withThirdGroup(t).replace(
            /(binding = "DB_G002"[\s\S]*migrations_dir = ")[^"]*"/,
            '$1/x/migrations/sites"',
          ),
        /DB_G002 must run migrations\/content/,
      ],
      [
        "no group at all",
        (t) => t.replace('CONTENT_GROUPS = "g000,g001"', 'CONTENT_GROUPS = ""'),
        /lists no group/,
      ],
    ];
    for (const [what, edit, problem] of cases) {
      const account = new FakeAccount();
      await expect(run(account, {}, { content: contentConfigWith(edit) }), what).rejects.toThrow(problem);
      expect(account.calls, what).toEqual([]);
    }
    expect(configProblems()).toEqual([]);
  });
});

describe("the databases npm start, npm run dev and the backups walk (scripts/databases.mjs)", () => {
  it("are every database of the configs: content's groups on its migrations, the directory on its own", () => {
    expect(allDatabases().map((db) => [db.name, db.service, db.binding, db.migrations])).toEqual([
      ["identity", "identity", "DB", "identity"],
      ["content-directory", "content", "DIRECTORY", "content-directory"],
      ["content-g000", "content", "DB_G000", "content"],
      ["content-g001", "content", "DB_G001", "content"],
      ["sites", "sites", "DB", "sites"],
    ]);
    expect(
      allDatabases()
        .map((db) => db.name)
        .sort(),
    ).toEqual([...resources().d1].sort());
  });

  it("take in a group added to content's config with no other change", () => {
    const groups = serviceDatabases("content", contentConfigWith(withThirdGroup));
    expect(groups.find((db) => db.name === "content-g002")).toEqual({
      service: "content",
      binding: "DB_G002",
      name: "content-g002",
      id: "content-g002",
      migrations: "content",
    });
    // A database outside migrations/ is a mistake, never a silent skip.
    const stray = contentConfigWith((t) =>
      withThirdGroup(t).replace(/migrations_dir = "[^"]*content"\n$/, 'migrations_dir = "/tmp/content"\n'),
    );
    expect(() => serviceDatabases("content", stray)).toThrow(/not a folder of migrations/);
  });
});
