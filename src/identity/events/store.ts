/**
 * Reads and retention of the security events (writes: src/identity/events/events.ts `recordEvent`), through
 * drizzle's query builder, except the event's INSERT (`INSERT … SELECT`, conditioned on `changes()`).
 */
import { and, desc, eq, lt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { securityEvents } from "../../../schema/identity";
import { type BatchEntry, batch, type Outcome, prepared, type Query } from "../../lib/sql";

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
  const e = securityEvents;
  const results: EventRow[] = await drizzle(db)
    .select({
      id: e.id,
      type: e.type,
      method: e.method,
      actor_user_id: e.actor_user_id,
      target: e.target,
      detail: e.detail,
      ip_prefix: e.ip_prefix,
      user_agent: e.user_agent,
      created_at: e.created_at,
    })
    .from(e)
    .where(
      and(
        eq(e[page.subject.column], page.subject.id),
        page.cursor === null ? undefined : lt(e.id, page.cursor),
        page.type === null ? undefined : eq(e.type, page.type),
      ),
    )
    .orderBy(desc(e.id))
    .limit(page.limit + 1)
    .all();
  const items = results.slice(0, page.limit);
  const next = results.length > page.limit ? items[items.length - 1]!.id : null;
  return { items, next_cursor: next };
}

/** The retention: events older than EVENT_RETENTION_DAYS leave (the only DELETE besides cascades). */
export function expiredEventsStatement(db: D1Database, now: number) {
  const cutoff = new Date(now - EVENT_RETENTION_DAYS * 24 * 3600 * 1000).toISOString();
  return prepared(db, drizzle(db).delete(securityEvents).where(lt(securityEvents.created_at, cutoff)));
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
  statements: Exclude<BatchEntry, Query<unknown>>[],
  event?: D1PreparedStatement,
): Promise<Outcome<never>[]> {
  return batch(db, event ? [...statements, event] : statements);
}
