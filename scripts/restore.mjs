// `npm run restore -- <file>… [--store <dir>] [--force]`: loads backups of `npm run backup` (one database
// each, named in its first line: identity, sites, content's groups content-g000, … and its directory
// content-directory; all the files of one stamp restore the whole platform) into the local store (`npm start`'s, .wrangler/state/v3; PLATFORM_STATE or
// --store move it). The database must be empty (no table): a non-empty one is refused unless --force,
// which drops its tables, views and triggers first. After the file's statements (tables, rows, indexes,
// views, triggers, and the FTS5 tables' CREATEs, empty), the search indexes are rebuilt: an FTS5 table over
// external content (`content='posts'`) with its `rebuild` command, any other from its source table, by the
// INSERT its AFTER INSERT trigger runs for each new row, replayed over every row of that table.
import { readFileSync } from "node:fs";
import path from "node:path";
import { DATABASES, d1Source, defaultStore, HEADER, localDatabases, readSchema } from "./backup.mjs";

/** The database a backup file holds, from its first line. */
export function databaseOf(sql) {
  const first = sql.slice(0, sql.indexOf("\n"));
  const match = new RegExp(`^${HEADER}: ([\\w-]+) at `).exec(first);
  if (!match) throw new Error(`not a backup of npm run backup (first line: ${first.slice(0, 80)})`);
  return match[1];
}

/** The statements of a file, split as wrangler splits migrations (trigger bodies stay whole). */
async function statementsOf(sql) {
  const { unstable_splitSqlQuery } = await import("wrangler");
  return unstable_splitSqlQuery(sql).filter((s) => s.trim().length > 0);
}

/** What the database holds besides SQLite's and D1's own tables. */
async function userObjects(db) {
  const { results } = await db
    .prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND type IN ('table', 'view', 'trigger')",
    )
    .all();
  return results;
}

/** Drops every table, view and trigger (FTS5 shadow tables go with their virtual table). */
async function dropAll(db) {
  const objects = await userObjects(db);
  const virtual = objects.filter((o) => o.type === "table" && /^CREATE VIRTUAL TABLE/i.test(o.sql ?? ""));
  const shadows = new Set(
    virtual.flatMap((v) => ["data", "idx", "content", "docsize", "config"].map((s) => `${v.name}_${s}`)),
  );
  const q = (name) => `"${name.replaceAll('"', '""')}"`;
  const drops = [
    ...objects.filter((o) => o.type === "trigger").map((o) => `DROP TRIGGER IF EXISTS ${q(o.name)}`),
    ...objects.filter((o) => o.type === "view").map((o) => `DROP VIEW IF EXISTS ${q(o.name)}`),
    ...virtual.map((o) => `DROP TABLE IF EXISTS ${q(o.name)}`),
    ...objects
      .filter((o) => o.type === "table" && !virtual.includes(o) && !shadows.has(o.name))
      .map((o) => `DROP TABLE IF EXISTS ${q(o.name)}`),
  ];
  await db.batch([db.prepare("PRAGMA defer_foreign_keys = ON"), ...drops.map((s) => db.prepare(s))]);
}

/** The source table and value list of an `INSERT INTO <fts> (...) VALUES (...)` inside a trigger body. */
function ftsInsertOf(trigger, fts) {
  const head =
    /^CREATE\s+TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+AFTER\s+INSERT\s+ON\s+("?)(\w+)\1\s+(?:FOR\s+EACH\s+ROW\s+)?(?:WHEN\s+([\s\S]*?)\s+)?BEGIN\s+([\s\S]*)END\s*;?$/i.exec(
      trigger.sql.trim(),
    );
  if (!head) return null;
  const [, , table, when, body] = head;
  const insert = new RegExp(`INSERT\\s+INTO\\s+"?${fts}"?\\s*(\\([^)]*\\))\\s*VALUES\\s*\\(`, "i").exec(body);
  if (!insert) return null;
  // The VALUES list: up to its matching parenthesis (strings and nested calls included).
  let depth = 1;
  let i = insert.index + insert[0].length;
  const start = i;
  for (; i < body.length && depth > 0; i++) {
    const ch = body[i];
    if (ch === "'") i = body.indexOf("'", i + 1);
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
  }
  return { table, when, columns: insert[1], values: body.slice(start, i - 1) };
}

/**
 * Rebuilds every FTS5 table: `rebuild` for external content, else the source rows re-inserted through the
 * statement of the trigger that fills it. Returns what was done per table.
 */
export async function rebuildSearch(db) {
  const source = d1Source(db);
  const schema = await readSchema(source);
  const done = {};
  for (const fts of schema.fts) {
    const create = schema.virtual.find((v) => v.name === fts).sql;
    const content = /content\s*=\s*'([^']*)'/i.exec(create)?.[1];
    if (content !== undefined && content !== "") {
      await db.prepare(`INSERT INTO "${fts}" ("${fts}") VALUES ('rebuild')`).run();
      done[fts] = `rebuilt from ${content}`;
      continue;
    }
    if (content === "") {
      done[fts] = "contentless: left empty (nothing to rebuild from)";
      continue;
    }
    const filler = schema.triggers.map((t) => ftsInsertOf(t, fts)).find(Boolean);
    if (!filler) {
      done[fts] = "left empty: no AFTER INSERT trigger fills it";
      continue;
    }
    // The trigger's `new` is each row of its table.
    await db.prepare(`DELETE FROM "${fts}"`).run();
    const where = filler.when ? ` WHERE ${filler.when}` : "";
    const result = await db
      .prepare(
        `INSERT INTO "${fts}" ${filler.columns} SELECT ${filler.values} FROM "${filler.table}" AS new${where}`,
      )
      .run();
    done[fts] = `${result.meta.changes} rows from ${filler.table}`;
  }
  return done;
}

/**
 * Loads the statements of a backup (split by `statementsOf` beforehand) into `db` (which must be empty unless
 * `force`) and rebuilds search.
 */
async function restoreInto(db, statements, { force = false } = {}) {
  const existing = await userObjects(db);
  if (existing.length > 0) {
    if (!force) {
      throw new Error(
        `the database is not empty (${existing.length} tables, views and triggers): restore into an empty store, or pass --force to replace it`,
      );
    }
    await dropAll(db);
  }
  // One batch: one transaction, so foreign keys are checked at its end (PRAGMA defer_foreign_keys) and
  // a failure leaves the database as it was.
  await db.batch(statements.map((s) => db.prepare(s)));
  return { statements: statements.length, search: await rebuildSearch(db) };
}

async function main() {
  const args = process.argv.slice(2);
  const files = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--store");
  if (files.length === 0) {
    console.error("usage: npm run restore -- <backups/<database>-<stamp>.sql>… [--store <dir>] [--force]");
    process.exit(2);
  }
  // Every file read and named before anything is written: an unknown database stops the whole restore.
  const backups = files.map((file) => {
    const sql = readFileSync(file, "utf8");
    const database = databaseOf(sql);
    if (!DATABASES.includes(database)) throw new Error(`${file}: unknown database ${database}`);
    return { sql, database };
  });
  // And every file split into its statements before anything is written (or Miniflare started).
  for (const backup of backups) backup.statements = await statementsOf(backup.sql);
  const storeAt = args.indexOf("--store");
  const store = path.resolve(storeAt >= 0 ? args[storeAt + 1] : defaultStore());
  const local = await localDatabases(store);
  try {
    for (const backup of backups) {
      const { database } = backup;
      const db = await local.db(database);
      const { statements, search } = await restoreInto(db, backup.statements, {
        force: args.includes("--force"),
      });
      console.log(`${database}: ${statements} statements restored into ${store}`);
      for (const [fts, what] of Object.entries(search)) console.log(`  search ${fts}: ${what}`);
    }
  } finally {
    await local.mf.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    // The cause too: Miniflare's "fetch failed" says nothing until its cause (a reset, a refused connection) is named.
    const cause = err.cause ? ` (cause: ${err.cause.code ?? ""} ${err.cause.message ?? err.cause})` : "";
    console.error(`${err.message ?? err}${cause}`);
    process.exit(1);
  });
}
