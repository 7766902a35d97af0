// `npm run backup [-- --out <dir>] [--remote]`: writes each D1 database (identity, sites, and content's
// site groups `content-g000`, `content-g001`, … and its directory `content-directory`: every database of
// the Workers' configs, scripts/databases.mjs) to a dated SQL file, `backups/<database>-<UTC stamp>.sql`
// (git-ignored), with this dumper: the CREATE
// statement of every table, index and trigger from `sqlite_master`, and an INSERT for every row of every
// table that is not virtual. `wrangler d1 export` refuses a database with FTS5 tables (content's
// `posts_fts` and `posts_search`), so those and their shadow tables are left out and rebuilt on restore
// (scripts/restore.mjs): the file keeps each FTS table's CREATE and the triggers that fill it.
//
// Where the rows come from is a `Source` (`query(sql) -> rows`):
//   - local (default): the store `npm start` and `npm run dev` use (.wrangler/state/v3, PLATFORM_STATE
//     moves it), through Miniflare's D1 (`getD1Database`);
//   - `--remote`: a deployed database through the D1 HTTP API, `POST
//     /client/v4/accounts/{account}/d1/database/{database}/query`, from an operator's machine or a CI job
//     (CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN with D1 read, and the databases' ids: D1_IDS='{"identity":
//     "<uuid>","content-g000":"<uuid>",…}', or else the `d1` map of the last deploy's
//     .wrangler/production/resources.json); a database of the configs without an id stops the backup
//     (a group is never skipped): never from a Worker. docs/operations.md "Backups".
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { allDatabases } from "./databases.mjs";
import { root } from "./workers.mjs";

/** The databases by name: identity, content's directory and every group, sites (scripts/databases.mjs). */
export const DATABASES = allDatabases().map((db) => db.name);

export const HEADER = "-- site-platform D1 backup";

/** Tables D1 or SQLite keep for themselves; never dumped, never restored. */
const INTERNAL = /^(sqlite_|_cf_)/;

/** The shadow tables FTS5 makes beside a virtual table `name` (created again by its CREATE). */
const FTS_SHADOWS = ["data", "idx", "content", "docsize", "config"];

/** Rows read per query (D1's HTTP API answers at most a few MB at a time). */
const PAGE = 500;

/** A SQL literal of a value as D1 hands it over (null, number, string, bytes). */
export function literal(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as SQL`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  // BLOBs: an ArrayBuffer or a typed array locally, an array of bytes from the HTTP API.
  const bytes =
    value instanceof ArrayBuffer
      ? new Uint8Array(value)
      : ArrayBuffer.isView(value)
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : Array.isArray(value)
          ? Uint8Array.from(value)
          : null;
  if (!bytes) throw new Error(`cannot write ${typeof value} as SQL`);
  return `X'${Buffer.from(bytes).toString("hex")}'`;
}

const quoted = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * The schema of a database as the dump sees it: its tables (plain ones to copy, FTS5 ones to rebuild),
 * indexes, triggers and views, in `sqlite_master` order.
 */
export async function readSchema(source) {
  const rows = await source.query(
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid",
  );
  const fts = rows
    .filter((r) => r.type === "table" && /^CREATE VIRTUAL TABLE/i.test(r.sql) && /USING\s+fts5/i.test(r.sql))
    .map((r) => r.name);
  const shadows = new Set(fts.flatMap((name) => FTS_SHADOWS.map((s) => `${name}_${s}`)));
  const kept = rows.filter((r) => !INTERNAL.test(r.name) && !shadows.has(r.name));
  return {
    tables: kept.filter((r) => r.type === "table" && !/^CREATE VIRTUAL TABLE/i.test(r.sql)),
    virtual: kept.filter((r) => r.type === "table" && /^CREATE VIRTUAL TABLE/i.test(r.sql)),
    fts,
    indexes: kept.filter((r) => r.type === "index"),
    triggers: kept.filter((r) => r.type === "trigger"),
    views: kept.filter((r) => r.type === "view"),
  };
}

/**
 * How a table's rows are read in a stable order and written back: a rowid table keeps its rowids (some
 * rows are addressed by them, e.g. identity's member_grant_endings) unless a column is the rowid already
 * (INTEGER PRIMARY KEY); a WITHOUT ROWID table is ordered by its primary key.
 */
async function tablePlan(source, table) {
  const columns = await source.query(`SELECT name, type, pk FROM pragma_table_info(${literal(table.name)})`);
  const names = columns.map((c) => c.name);
  const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const withoutRowid = /WITHOUT\s+ROWID\s*$/i.test(table.sql.trim());
  const rowidAlias = !withoutRowid && pk.length === 1 && /^INTEGER$/i.test(pk[0].type.trim());
  const keepRowid = !withoutRowid && !rowidAlias;
  return { names, pk: pk.map((c) => c.name), withoutRowid, keepRowid };
}

/** Every row of a table, `PAGE` at a time (keyset on rowid, or offset on the primary key order). */
async function* tableRows(source, table, plan) {
  const cols = plan.names.map(quoted).join(", ");
  if (plan.withoutRowid) {
    const order = plan.pk.map(quoted).join(", ");
    for (let offset = 0; ; offset += PAGE) {
      const rows = await source.query(
        `SELECT ${cols} FROM ${quoted(table.name)} ORDER BY ${order} LIMIT ${PAGE} OFFSET ${offset}`,
      );
      for (const row of rows) yield plan.names.map((n) => row[n]);
      if (rows.length < PAGE) return;
    }
  }
  for (let after = null; ; ) {
    const where = after === null ? "" : ` WHERE rowid > ${literal(after)}`;
    const rows = await source.query(
      `SELECT rowid AS "__rowid", ${cols} FROM ${quoted(table.name)}${where} ORDER BY rowid LIMIT ${PAGE}`,
    );
    for (const row of rows)
      yield [...(plan.keepRowid ? [row.__rowid] : []), ...plan.names.map((n) => row[n])];
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].__rowid;
  }
}

/**
 * The dump of one database as SQL text: a header naming the database and the time, the tables, every row,
 * then the indexes, views and triggers, and the FTS5 tables' CREATEs (rows rebuilt on restore).
 */
export async function dumpDatabase(source, { database, now = new Date() } = {}) {
  const schema = await readSchema(source);
  const out = [
    `${HEADER}: ${database ?? "database"} at ${now.toISOString()}`,
    `-- fts5: ${schema.fts.join(", ") || "(none)"} (rebuilt on restore: npm run restore)`,
    "PRAGMA defer_foreign_keys = ON;",
  ];
  for (const table of schema.tables) out.push(`${table.sql};`);
  const counts = {};
  for (const table of schema.tables) {
    const plan = await tablePlan(source, table);
    const cols = [...(plan.keepRowid ? ["rowid"] : []), ...plan.names].map(quoted).join(", ");
    let n = 0;
    for await (const values of tableRows(source, table, plan)) {
      out.push(`INSERT INTO ${quoted(table.name)} (${cols}) VALUES (${values.map(literal).join(", ")});`);
      n++;
    }
    counts[table.name] = n;
  }
  for (const entry of [...schema.virtual, ...schema.indexes, ...schema.views]) out.push(`${entry.sql};`);
  for (const trigger of schema.triggers) out.push(`${trigger.sql};`);
  return { sql: `${out.join("\n")}\n`, counts, fts: schema.fts };
}

/** A Source over a D1 binding (Miniflare's `getD1Database`, or a Worker's `env.DB` in tests). */
export function d1Source(db) {
  return { query: async (sql) => (await db.prepare(sql).all()).results };
}

/**
 * A Source over the D1 HTTP API (a deployed database): `POST /accounts/{account}/d1/database/{id}/query`
 * with a Bearer API token. `fetchImpl` is injectable (tests never reach the network).
 */
export function d1HttpSource({
  accountId,
  databaseId,
  apiToken,
  fetchImpl = fetch,
  base = "https://api.cloudflare.com/client/v4",
}) {
  const url = `${base}/accounts/${accountId}/d1/database/${databaseId}/query`;
  return {
    async query(sql) {
      const res = await fetchImpl(url, {
        method: "POST",
        headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
        body: JSON.stringify({ sql, params: [] }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok || !body?.success) {
        const why = body?.errors?.map((e) => e.message).join("; ") || `HTTP ${res.status}`;
        throw new Error(`D1 query failed (${databaseId}): ${why}`);
      }
      return body.result[0]?.results ?? [];
    },
  };
}

/** `YYYYMMDDTHHMMSSZ`: sorts by time, safe in a file name. */
export function stamp(now = new Date()) {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/**
 * A Miniflare with every local database bound by its name, with the id the platform binds it by (so the
 * same SQLite files under `persist`), and nothing else. Used by backup and restore.
 */
export async function localDatabases(persist) {
  const { convertV4MiniflareOptions, Log, LogLevel, Miniflare } = await import("miniflare");
  const ids = Object.fromEntries(allDatabases().map((db) => [db.name, db.id]));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: persist,
      log: new Log(LogLevel.WARN),
      workers: [
        {
          name: "backup",
          modules: true,
          script: "export default { fetch() { return new Response(null, { status: 204 }); } };",
          d1Databases: ids,
        },
      ],
    }),
  );
  await mf.ready;
  return { mf, db: (name) => mf.getD1Database(name) };
}

/**
 * The deployed databases' ids by name: `D1_IDS` (JSON) when set, else the `d1` map of the last deploy's
 * resources file. Every database of the configs must have one: a backup that skipped a group would look
 * complete and not be.
 */
export function remoteIds(
  env = process.env,
  resourcesFile = path.join(root, ".wrangler/production/resources.json"),
) {
  const ids = env.D1_IDS
    ? JSON.parse(env.D1_IDS)
    : existsSync(resourcesFile)
      ? JSON.parse(readFileSync(resourcesFile, "utf8")).d1
      : null;
  if (!ids) throw new Error("--remote needs D1_IDS (JSON: database -> id) or a deploy's resources.json");
  const missing = DATABASES.filter((name) => !ids[name]);
  if (missing.length) throw new Error(`no database id for ${missing.join(", ")} (D1_IDS or resources.json)`);
  return ids;
}

/** The default local store: `npm start`'s and `npm run dev`'s (`PLATFORM_STATE` moves it, as for `npm start`). */
export const defaultStore = () => process.env.PLATFORM_STATE ?? path.join(root, ".wrangler/state/v3");

function argValue(args, flag) {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main() {
  const args = process.argv.slice(2);
  const outDir = path.resolve(argValue(args, "--out") ?? path.join(root, "backups"));
  const now = new Date();
  mkdirSync(outDir, { recursive: true });
  let sources;
  let close = async () => {};
  if (args.includes("--remote")) {
    const { CLOUDFLARE_ACCOUNT_ID: accountId, CLOUDFLARE_API_TOKEN: apiToken } = process.env;
    if (!accountId || !apiToken) {
      console.error(
        "--remote needs CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN and the ids (D1_IDS, JSON: database -> id, or the deploy's resources.json)",
      );
      process.exit(2);
    }
    const ids = remoteIds();
    sources = Object.fromEntries(
      DATABASES.map((name) => [name, d1HttpSource({ accountId, apiToken, databaseId: ids[name] })]),
    );
  } else {
    const local = await localDatabases(path.resolve(argValue(args, "--store") ?? defaultStore()));
    sources = Object.fromEntries(
      await Promise.all(DATABASES.map(async (name) => [name, d1Source(await local.db(name))])),
    );
    close = () => local.mf.dispose();
  }
  try {
    for (const name of DATABASES) {
      const { sql, counts } = await dumpDatabase(sources[name], { database: name, now });
      const file = path.join(outDir, `${name}-${stamp(now)}.sql`);
      writeFileSync(file, sql);
      const rows = Object.values(counts).reduce((a, b) => a + b, 0);
      console.log(
        `${name}: ${Object.keys(counts).length} tables, ${rows} rows -> ${path.relative(root, file)}`,
      );
    }
  } finally {
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
