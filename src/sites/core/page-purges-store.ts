/** The page-purge outbox's rows (`page_purges`) and, in development, the recorded purges (src/sites/core/page-cache.ts). */
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { outboundEffects, pagePurges } from "../../../schema/sites";
import type { Row } from "../../lib/rows";

export type PurgeRow = Row<typeof pagePurges, "id" | "site_id" | "hosts_json" | "reason" | "attempts">;

/** Development (DEV_OUTBOX=true): the purge a deploy would send, kept in `outbound_effects` for tests. */
export async function recordDevPurge(
  db: D1Database,
  id: string,
  siteId: string,
  hosts: string[],
  at: string,
) {
  await drizzle(db)
    .insert(outboundEffects)
    .values({
      id,
      kind: "page_purge",
      site_id: siteId,
      payload_json: JSON.stringify({ hosts }),
      created_at: at,
    })
    .run();
}

/** A purge to deliver, due at once. */
export async function insertPurge(db: D1Database, row: PurgeRow, now: string) {
  await drizzle(db)
    .insert(pagePurges)
    .values({
      id: row.id,
      site_id: row.site_id,
      hosts_json: row.hosts_json,
      reason: row.reason,
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .run();
}

/** A delivered purge leaves the outbox. */
export async function deletePurge(db: D1Database, id: string) {
  await drizzle(db).delete(pagePurges).where(eq(pagePurges.id, id)).run();
}

/** A failed delivery: its attempt count, error and next attempt, and when it was given up (or null). */
export async function markPurgeFailed(
  db: D1Database,
  id: string,
  failure: { attempts: number; error: string; nextAttemptAt: string; gaveUpAt: string | null },
) {
  await drizzle(db)
    .update(pagePurges)
    .set({
      attempts: failure.attempts,
      last_error: failure.error,
      next_attempt_at: failure.nextAttemptAt,
      gave_up_at: failure.gaveUpAt,
    })
    .where(eq(pagePurges.id, id))
    .run();
}

/** The purges due by `now` and not given up, oldest due first, at most `limit`. */
export function duePurges(db: D1Database, now: string, limit: number): Promise<PurgeRow[]> {
  return drizzle(db)
    .select({
      id: pagePurges.id,
      site_id: pagePurges.site_id,
      hosts_json: pagePurges.hosts_json,
      reason: pagePurges.reason,
      attempts: pagePurges.attempts,
    })
    .from(pagePurges)
    .where(and(isNull(pagePurges.gave_up_at), lte(pagePurges.next_attempt_at, now)))
    .orderBy(asc(pagePurges.next_attempt_at))
    .limit(limit)
    .all();
}
