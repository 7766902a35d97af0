/** The readiness probe's one statement: D1 answers a trivial query. */
export function pingDatabase(db: D1Database) {
  return db.prepare("SELECT 1 AS ok").first();
}
