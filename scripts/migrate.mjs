// Applies a service's SQL migrations (migrations/<service>/NNNN_*.sql, in order) to a D1 database,
// keeping wrangler's bookkeeping table `d1_migrations`, so `wrangler d1 migrations apply` and this agree.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { unstable_splitSqlQuery } from "wrangler";
import { root } from "./workers.mjs";

export async function applyMigrations(db, service) {
  await db
    .prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    )
    .run();
  const applied = new Set(
    (await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name),
  );
  const dir = path.join(root, "migrations", service);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const done = [];
  for (const file of files) {
    if (applied.has(file)) continue;
    const statements = unstable_splitSqlQuery(readFileSync(path.join(dir, file), "utf8"));
    await db.batch([
      ...statements.map((sql) => db.prepare(sql)),
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(file),
    ]);
    done.push(file);
  }
  return done;
}
