/** Reads and retention of the security events (writes: src/identity/events/events.ts `recordEvent`). */
import type { securityEvents } from "../../../schema/identity";
import { batch, type Outcome } from "../../lib/sql";

export interface EventRow {
  id: string;
  type: string;
  method: string | null;
  actor_user_id: string | null;
  target: string | null;
  detail: string | null;
  ip_prefix: string | null;
  user_agent: string | null;
  created_at: string;
}

/** How long an event is kept (cron): long enough to look back over a quarter, short for a log of people. */
const EVENT_RETENTION_DAYS = 90;

export interface EventPage {
  subject: { column: "user_id" | "org_id"; id: string };
  /** The id of the last event of the previous page (keyset: strictly older events follow). */
  cursor: string | null;
  type: string | null;
  limit: number;
}

/** One page of a subject's events, newest first, and the cursor of the next page (null on the last). */
export async function listEvents(db: D1Database, page: EventPage) {
  const { results } = await db
    .prepare(
      `SELECT id, type, method, actor_user_id, target, detail, ip_prefix, user_agent, created_at
       FROM security_events
       WHERE ${page.subject.column} = ?1 AND (?2 IS NULL OR id < ?2) AND (?3 IS NULL OR type = ?3)
       ORDER BY id DESC LIMIT ?4`,
    )
    .bind(page.subject.id, page.cursor, page.type, page.limit + 1)
    .all<EventRow>();
  const items = results.slice(0, page.limit);
  const next = results.length > page.limit ? items[items.length - 1]!.id : null;
  return { items, next_cursor: next };
}

/** The retention: events older than EVENT_RETENTION_DAYS leave (the only DELETE besides cascades). */
export function expiredEventsStatement(db: D1Database, now: number) {
  const cutoff = new Date(now - EVENT_RETENTION_DAYS * 24 * 3600 * 1000).toISOString();
  return db.prepare("DELETE FROM security_events WHERE created_at < ?").bind(cutoff);
}

/**
 * The INSERT of one event (events/events.ts `recordEvent`). With `ifChanged` the row is written only when
 * the statement just before it in the batch changed a row (SQLite `changes()`).
 */
export function insertEventStatement(
  db: D1Database,
  row: typeof securityEvents.$inferSelect,
  ifChanged: boolean,
): D1PreparedStatement {
  const where = ifChanged ? " WHERE changes() > 0" : "";
  return db
    .prepare(
      `INSERT INTO security_events
         (id, user_id, org_id, type, method, actor_user_id, target, detail, ip_prefix, user_agent, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${where}`,
    )
    .bind(
      row.id,
      row.user_id,
      row.org_id,
      row.type,
      row.method,
      row.actor_user_id,
      row.target,
      row.detail,
      row.ip_prefix,
      row.user_agent,
      row.created_at,
    );
}

/**
 * Runs `statements` as one batch with the change's security event (src/identity/events/events.ts
 * `recordEvent`) last, when there is one: the event row commits with the change or not at all.
 */
export function batchWithEvent(
  db: D1Database,
  statements: D1PreparedStatement[],
  event?: D1PreparedStatement,
): Promise<Outcome<never>[]> {
  return batch(db, event ? [...statements, event] : statements);
}
