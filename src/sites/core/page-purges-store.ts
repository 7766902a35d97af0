/** The page-purge outbox's rows (`page_purges`) and, in development, the recorded purges (src/sites/core/page-cache.ts). */
import type { pagePurges } from "../../../schema/sites";
import type { Row } from "../../lib/rows";
import { all, query, run } from "../../lib/sql";

export type PurgeRow = Row<typeof pagePurges, "id" | "site_id" | "hosts_json" | "reason" | "attempts">;

/** Development (DEV_OUTBOX=true): the purge a deploy would send, kept in `outbound_effects` for tests. */
export async function recordDevPurge(
  db: D1Database,
  id: string,
  siteId: string,
  hosts: string[],
  at: string,
) {
  await run(
    query<never>(
      db,
      "INSERT INTO outbound_effects (id, kind, site_id, payload_json, created_at) VALUES (?, 'page_purge', ?, ?, ?)",
      id,
      siteId,
      JSON.stringify({ hosts }),
      at,
    ),
  );
}

/** A purge to deliver, due at once. */
export async function insertPurge(db: D1Database, row: PurgeRow, now: string) {
  await run(
    query<never>(
      db,
      "INSERT INTO page_purges (id, site_id, hosts_json, reason, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
      row.id,
      row.site_id,
      row.hosts_json,
      row.reason,
      now,
      now,
    ),
  );
}

/** A delivered purge leaves the outbox. */
export async function deletePurge(db: D1Database, id: string) {
  await run(query<never>(db, "DELETE FROM page_purges WHERE id = ?", id).statement);
}

/** A failed delivery: its attempt count, error and next attempt, and when it was given up (or null). */
export async function markPurgeFailed(
  db: D1Database,
  id: string,
  failure: { attempts: number; error: string; nextAttemptAt: string; gaveUpAt: string | null },
) {
  await run(
    query<never>(
      db,
      "UPDATE page_purges SET attempts = ?, last_error = ?, next_attempt_at = ?, gave_up_at = ? WHERE id = ?",
      failure.attempts,
      failure.error,
      failure.nextAttemptAt,
      failure.gaveUpAt,
      id,
    ),
  );
}

/** The purges due by `now` and not given up, oldest due first, at most `limit`. */
export function duePurges(db: D1Database, now: string, limit: number): Promise<PurgeRow[]> {
  return all(
    query<PurgeRow>(
      db,
      "SELECT id, site_id, hosts_json, reason, attempts FROM page_purges WHERE gave_up_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?",
      now,
      limit,
    ),
  );
}
