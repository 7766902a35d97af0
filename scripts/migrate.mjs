// Applies a service's SQL migrations (migrations/<service>/<NNNN>_*.sql, in order) to a D1 database,
// keeping wrangler's bookkeeping table `d1_migrations`, so `wrangler d1 migrations apply` and this agree.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./workers.mjs";

/** The files of a service's migrations, in order. */
export function migrationFiles(service) {
  return readdirSync(path.join(root, "migrations", service))
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/** The statements of one migration file, split as wrangler splits them. */
export async function migrationStatements(service, file) {
  const { unstable_splitSqlQuery } = await import("wrangler");
  return unstable_splitSqlQuery(readFileSync(path.join(root, "migrations", service, file), "utf8"));
}

/**
 * `statementsOf(file)`: the statements of a file when the caller has them already split (`npm start`
 * splits them in a short-lived process, so its own never loads wrangler); default: split here.
 */
export async function applyMigrations(
  db,
  service,
  statementsOf = (file) => migrationStatements(service, file),
) {
  await db
    .prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    )
    .run();
  const applied = new Set(
    (await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name),
  );
  const done = [];
  for (const file of migrationFiles(service)) {
    if (applied.has(file)) continue;
    const statements = await statementsOf(file);
    await db.batch([
      ...statements.map((sql) => db.prepare(sql)),
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(file),
    ]);
    done.push(file);
  }
  return done;
}
