/**
 * Backups (issue 36): a store filled through the platform's own API (an account, its organization and
 * site, published posts with words to search for), dumped by `npm run backup` (scripts/backup.mjs: every
 * non-virtual table's rows, FTS5 tables left out), loaded by `npm run restore` into an empty store (the
 * search indexes rebuilt), and the platform started again on the restored store finds the same posts,
 * account, site and search results. The remote path (the D1 HTTP API's query endpoint) is the same dumper
 * over another source: checked against a stand-in of the endpoint, never the network.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { d1HttpSource, d1Source, dumpDatabase, remoteIds } from "../../scripts/backup.mjs";
import { startPlatform } from "../../scripts/platform.mjs";
import { databaseOf } from "../../scripts/restore.mjs";
import { seedDemo } from "../../scripts/seed.mjs";
import { root } from "../../scripts/workers.mjs";
import { testOnlySettings } from "../support/test-only-settings";

const run = promisify(execFile);

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port offset where the four Workers' ports (8787-8790 + offset) are all free. */
async function freeOffset(): Promise<number> {
  for (let offset = 3600 + (process.pid % 50) * 10; offset < 6500; offset += 10) {
    const ports = [8787, 8788, 8789, 8790].map((p) => p + offset);
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return offset;
  }
  throw new Error("no free port offset");
}

const dir = mkdtempSync(path.join(tmpdir(), "platform-backup-"));
const storeA = path.join(dir, "a");
const storeB = path.join(dir, "b");
const backups = path.join(dir, "backups");
const distDir = path.join(root, ".test-build", `backup-${process.pid}`);

type Urls = Record<"gateway" | "identity" | "content" | "sites", string>;

async function boot(persist: string) {
  return startPlatform({
    persist,
    portOffset: await freeOffset(),
    distDir,
    extraBindings: { identity: testOnlySettings },
    handleStructuredLogs: (log) => {
      if (log.level === "error") process.stderr.write(`${log.message}\n`);
    },
  });
}

async function get(url: string, token: string): Promise<unknown> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface Seen {
  me: { id: string; email: string };
  site: { id: string; name: string; org_id: string };
  posts: string[];
  search: { body: string[]; title: string[] };
}

/** What a client sees of the tenant: the account, the site, the posts and two searches. */
async function look(urls: Urls, demo: Awaited<ReturnType<typeof seedDemo>>): Promise<Seen> {
  const me = (await get(`${urls.gateway}/api/v1/auth/me`, demo.session.access_token)) as Seen["me"];
  const site = (await get(
    `${urls.gateway}/api/v1/sites/${demo.site.id}`,
    demo.session.access_token,
  )) as Seen["site"];
  const ids = async (p: string) =>
    ((await get(`${urls.gateway}${p}`, demo.keys.secret)) as { items: { id: string }[] }).items.map(
      (i) => i.id,
    );
  return {
    me: { id: me.id, email: me.email },
    site: { id: site.id, name: site.name, org_id: site.org_id },
    posts: await ids("/v1/posts?limit=50"),
    search: { body: await ids("/v1/search?q=axolotl"), title: await ids("/v1/search?q=quokka") },
  };
}

let before: Seen;
let demo: Awaited<ReturnType<typeof seedDemo>>;
let localDump = "";
let demoGroup = "";
let remoteDump = "";
const remoteCalls: { url: string; method: string; auth: string | null; body: { sql: string } }[] = [];

beforeAll(async () => {
  const { mf, urls } = await boot(storeA);
  try {
    demo = await seedDemo(urls.gateway, { fresh: true, stateFile: path.join(dir, "demo.json") });
    const post = (body: object) =>
      fetch(`${urls.gateway}/v1/posts`, {
        method: "POST",
        headers: { authorization: `Bearer ${demo.keys.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ status: "published", ...body }),
      }).then(async (res) => {
        if (res.status !== 201) throw new Error(`create post: ${res.status} ${await res.text()}`);
      });
    const paragraph = (text: string) => ({ blocks: [{ id: "p1", type: "paragraph", data: { text } }] });
    await post({ title: "Pond life", blocks_json: paragraph("An axolotl keeps its gills") });
    await post({ title: "The quokka smiles", summary: "Rottnest", blocks_json: paragraph("and an axolotl") });
    await post({ title: "Draft of nothing", status: "draft", blocks_json: paragraph("quokka draft") });
    before = await look(urls, demo);
    // The remote path: the same dumper through the D1 HTTP API's query endpoint, answered here by the
    // local database (the request as Cloudflare documents it: POST, Bearer token, {sql, params}): the
    // group the directory placed the demo site in (docs/decisions/site-groups.md).
    const directory = await mf.getD1Database("DIRECTORY", "content");
    const placed = await directory
      .prepare("SELECT group_name FROM site_groups WHERE site_id = ?")
      .bind(demo.site.id)
      .first<{ group_name: string }>();
    demoGroup = placed!.group_name;
    const content = await mf.getD1Database(`DB_${demoGroup.toUpperCase()}`, "content");
    const endpoint = async (url: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { sql: string; params: unknown[] };
      remoteCalls.push({
        url: String(url),
        method: init?.method ?? "GET",
        auth: new Headers(init?.headers).get("authorization"),
        body,
      });
      const { results } = await content.prepare(body.sql).all();
      return Response.json({ success: true, errors: [], messages: [], result: [{ results, success: true }] });
    };
    const at = new Date("2026-11-29T00:00:00Z");
    remoteDump = (
      await dumpDatabase(
        d1HttpSource({ accountId: "acc", databaseId: "content-uuid", apiToken: "tok", fetchImpl: endpoint }),
        { database: "content", now: at },
      )
    ).sql;
    localDump = (await dumpDatabase(d1Source(content), { database: "content", now: at })).sql;
  } finally {
    await mf.dispose();
  }
}, 240_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(distDir, { recursive: true, force: true });
});

describe("npm run backup and npm run restore", () => {
  it("the store under test has what the check needs: posts, search hits in body and title", () => {
    expect(before.posts).toHaveLength(2);
    expect(before.search.body).toHaveLength(2);
    // The title match, and the draft's body (a ck_ key with posts:write finds drafts too).
    expect(before.search.title).toHaveLength(2);
  });

  it("dumps through the D1 HTTP API exactly what it dumps locally", () => {
    expect(remoteCalls.length).toBeGreaterThan(3);
    for (const call of remoteCalls) {
      expect(call.url).toBe(
        "https://api.cloudflare.com/client/v4/accounts/acc/d1/database/content-uuid/query",
      );
      expect(call.method).toBe("POST");
      expect(call.auth).toBe("Bearer tok");
    }
    expect(remoteDump).toBe(localDump);
    // FTS5 tables: their CREATE kept, their rows (and shadow tables) left out.
    expect(localDump).toMatch(/CREATE VIRTUAL TABLE posts_search USING fts5/);
    expect(localDump).not.toMatch(/INSERT INTO "posts_(search|fts)/);
    expect(localDump).not.toMatch(/posts_search_data|posts_fts_idx/);
  });

  it("restores into an empty store what the platform finds again: posts, account, site and search results", async () => {
    const backup = await run(process.execPath, ["scripts/backup.mjs", "--store", storeA, "--out", backups], {
      cwd: root,
    });
    // Every database: identity, sites, each content group and the directory.
    for (const name of ["identity", "sites", "content-g000", "content-g001", "content-directory"]) {
      expect(backup.stdout).toMatch(new RegExp(`^${name}: \\d+ tables, \\d+ rows`, "m"));
    }
    const files = readdirSync(backups).sort();
    const fileOf = (name: string) => files.find((f) => f.startsWith(`${name}-2`))!;
    expect(files.map((f) => f.replace(/-\d{8}T\d{6}Z\.sql$/, ""))).toEqual([
      "content-directory",
      "content-g000",
      "content-g001",
      "identity",
      "sites",
    ]);
    expect(readFileSync(path.join(backups, fileOf("content-g001")), "utf8")).toMatch(
      /^-- site-platform D1 backup: content-g001 at /,
    );
    // The directory's rows name the demo site's group.
    expect(readFileSync(path.join(backups, fileOf("content-directory")), "utf8")).toContain(
      `'${demo.site.id}'`,
    );
    // All the files of the backup in one restore.
    const restored = await run(
      process.execPath,
      ["scripts/restore.mjs", ...files.map((f) => path.join(backups, f)), "--store", storeB],
      { cwd: root },
    );
    for (const name of ["identity", "sites", "content-g000", "content-g001", "content-directory"]) {
      expect(restored.stdout).toMatch(new RegExp(`^${name}: \\d+ statements restored`, "m"));
    }
    // Each group's search rebuilt; the demo group's from every post of the site (the seed's and these three).
    expect(restored.stdout.match(/search posts_fts: rebuilt from posts/g)).toHaveLength(2);
    const rebuilt = [...restored.stdout.matchAll(/search posts_search: (\d+) rows from posts/g)].map((m) =>
      Number(m[1]),
    );
    expect(Math.max(...rebuilt)).toBeGreaterThanOrEqual(3);
    // A second restore into the now filled store is refused without --force, and replaces it with it.
    const again = run(
      process.execPath,
      ["scripts/restore.mjs", path.join(backups, fileOf("sites")), "--store", storeB],
      {
        cwd: root,
      },
    );
    await expect(again).rejects.toMatchObject({ stderr: expect.stringContaining("not empty") });
    await run(
      process.execPath,
      [
        "scripts/restore.mjs",
        path.join(backups, fileOf(`content-${demoGroup}`)),
        "--store",
        storeB,
        "--force",
      ],
      {
        cwd: root,
      },
    );

    const { mf, urls, migrations } = await boot(storeB);
    try {
      // The migration history came back with the rest: nothing to apply.
      for (const applied of Object.values(migrations)) expect(applied).toEqual([]);
      expect(await look(urls, demo)).toEqual(before);
    } finally {
      await mf.dispose();
    }
  }, 240_000);
});

describe("the remote backup's database ids", () => {
  const all = {
    identity: "1",
    sites: "2",
    "content-directory": "3",
    "content-g000": "4",
    "content-g001": "5",
  };

  it("come from D1_IDS, else from the last deploy's resources.json, and must name every group", () => {
    expect(remoteIds({ D1_IDS: JSON.stringify(all) }, "/nonexistent")).toEqual(all);
    const file = path.join(dir, "resources.json");
    writeFileSync(file, JSON.stringify({ d1: all, kv: {} }));
    expect(remoteIds({}, file)).toEqual(all);
    const { "content-g001": _dropped, ...partial } = all;
    expect(() => remoteIds({ D1_IDS: JSON.stringify(partial) }, file)).toThrow(
      /no database id for content-g001/,
    );
    expect(() => remoteIds({}, "/nonexistent")).toThrow(/needs D1_IDS/);
  });

  it("a backup's first line names its database, groups and directory included", () => {
    for (const name of ["content-g001", "content-directory", "identity"]) {
      expect(databaseOf(`-- site-platform D1 backup: ${name} at 2026-11-29T00:00:00.000Z\n`)).toBe(name);
    }
    expect(() => databaseOf("-- something else\n")).toThrow(/not a backup/);
  });
});
