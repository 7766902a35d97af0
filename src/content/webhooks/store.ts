/**
 * Webhooks of a site and their delivery log. Every query names the site, so another site's webhook id
 * matches nothing. Guarded writes (the per-site limit, the delivery claim, the attempt record) are single
 * statements, so concurrent consumers and admins never double-count. Queries go through drizzle's query
 * builder (the live-webhook and subscription rules as SQL fragments over the alias `w`), except the
 * `INSERT … SELECT` guards: the per-site limit and a post event's outbox rows.
 */
import { and, asc, desc, eq, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { webhookDeliveries, webhooks } from "../../../schema/content";
import { newId } from "../../lib/ids";
import type { Row } from "../../lib/rows";
import { batch, fragment, query } from "../../lib/sql";
import type { PostEffect } from "../core/effects/pending";
import { notFenced } from "../groups/fence-store";
import type { ContentEvent } from "./events";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A webhook as listed: never its secret (nor its organization stamp). */
export type WebhookView = Omit<WebhookRow, "secret_encrypted" | "org_id">;

/** A webhook as inserted: its stamp is set by trigger, and a new webhook is never carried over. */
export type NewWebhookRow = Omit<WebhookRow, "org_id" | "carried_over_at" | "carried_over_from">;

const VIEW_COLUMNS = {
  id: webhooks.id,
  site_id: webhooks.site_id,
  url: webhooks.url,
  events_json: webhooks.events_json,
  description: webhooks.description,
  created_by: webhooks.created_by,
  created_at: webhooks.created_at,
  secret_rotated_at: webhooks.secret_rotated_at,
  carried_over_at: webhooks.carried_over_at,
  carried_over_from: webhooks.carried_over_from,
};

/** Inserts the webhook unless the site already has `limit`; false when the limit was reached. */
export async function insertWebhook(db: D1Database, row: NewWebhookRow, limit: number): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO webhooks (id, site_id, url, events_json, description, secret_encrypted, created_by, created_at, secret_rotated_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, NULL WHERE (SELECT count(*) FROM webhooks WHERE site_id = ?) < ?`,
    )
    .bind(
      row.id,
      row.site_id,
      row.url,
      row.events_json,
      row.description,
      row.secret_encrypted,
      row.created_by,
      row.created_at,
      row.site_id,
      limit,
    )
    .run();
  return result.meta.changes > 0;
}

/** The site's webhooks, newest first; with `id`, that one alone. */
export async function listSiteWebhooks(db: D1Database, siteId: string, id?: string): Promise<WebhookView[]> {
  return drizzle(db)
    .select(VIEW_COLUMNS)
    .from(webhooks)
    .where(and(eq(webhooks.site_id, siteId), id === undefined ? undefined : eq(webhooks.id, id)))
    .orderBy(desc(webhooks.created_at), desc(webhooks.id))
    .all();
}

export async function webhookExists(db: D1Database, siteId: string, id: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ found: sql<number>`1` })
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.site_id, siteId)))
    .get();
  return row !== undefined;
}

/** Deletes the webhook and its delivery log in one batch; false when the site has no such webhook. */
export async function deleteWebhook(db: D1Database, siteId: string, id: string): Promise<boolean> {
  const d = drizzle(db);
  const [removed] = await d.batch([
    d.delete(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.site_id, siteId))),
    d
      .delete(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhook_id, id), eq(webhookDeliveries.site_id, siteId))),
  ]);
  return removed.meta.changes > 0;
}

/** Replaces the sealed secret; false when the site has no such webhook. */
export async function replaceWebhookSecret(
  db: D1Database,
  siteId: string,
  id: string,
  sealed: string,
  now: string,
): Promise<boolean> {
  const result = await drizzle(db)
    .update(webhooks)
    .set({ secret_encrypted: sealed, secret_rotated_at: now })
    .where(and(eq(webhooks.id, id), eq(webhooks.site_id, siteId)))
    .run();
  return result.meta.changes > 0;
}

/**
 * A webhook that may be delivered to (`w`): not carried over by a transfer, and stamped for the site's
 * owner as content knows it (so before the site-transferred consumer has run, the origin's webhook is
 * already silent once the projection or the transfer names the new owner).
 */
const LIVE_WEBHOOK =
  "w.carried_over_at IS NULL AND w.org_id IS (SELECT org_id FROM site_owner o WHERE o.site_id = w.site_id)";

/** The webhooks table as `w`, the name `LIVE_WEBHOOK` and `SUBSCRIBED_WEBHOOK` give it, for the builder. */
const w = alias(webhooks, "w");

/** A live webhook's URL and sealed secret (for a test ping); null for another site's, a carried-over or no webhook. */
export async function liveWebhook(
  db: D1Database,
  siteId: string,
  id: string,
): Promise<Row<typeof webhooks, "url" | "secret_encrypted"> | null> {
  const row = await drizzle(db)
    .select({ url: w.url, secret_encrypted: w.secret_encrypted })
    .from(w)
    .where(and(eq(w.id, id), eq(w.site_id, siteId), fragment(LIVE_WEBHOOK)))
    .get();
  return row ?? null;
}

/**
 * Webhook `w` is a live webhook (`LIVE_WEBHOOK`) of site `?1` subscribed to event type `?2` (a
 * `lead.created` subscription counts only with an accountable creator: personal data goes only to a webhook
 * someone answers for, whose every delivery is audited in their name).
 */
const SUBSCRIBED_WEBHOOK = `w.site_id = ?1 AND EXISTS (SELECT 1 FROM json_each(w.events_json) WHERE json_each.value = ?2)
  AND ${LIVE_WEBHOOK} AND (?2 != 'lead.created' OR w.created_by IS NOT NULL)`;

/** SQL true when site `?1` has a webhook subscribed to event type `?2` (`SUBSCRIBED_WEBHOOK`). */
const SUBSCRIBED = `EXISTS (SELECT 1 FROM webhooks w WHERE ${SUBSCRIBED_WEBHOOK})`;

/**
 * `sql` (an INSERT … SELECT of a post event's row, see below) bound to the event: ?1 site, ?2 event type,
 * ?3 the row's id, ?4 post, ?5 payload, ?6 time.
 */
function eventRowStatement(
  db: D1Database,
  sql: string,
  rowId: string,
  effect: PostEffect & { payload: ContentEvent },
  now: string,
): D1PreparedStatement {
  return db
    .prepare(sql)
    .bind(effect.site_id, effect.payload.type, rowId, effect.post_id, JSON.stringify(effect.payload), now);
}

/**
 * The outbox row of a new post's event, written only when the statement before it in the batch changed
 * exactly one row (the post's insert) and a live webhook of the site subscribes to the event: the
 * subscribers of the moment of the commit, the set the consumer's fan-out (`subscribedWebhookIds`)
 * would find. An event nobody subscribes to has no receiver (webhooks are the events' only consumer),
 * so it costs no outbox row, no queue message and no delivery. Its result has the row's id when the row
 * was written (`RETURNING`: D1's `meta.changes` of an INSERT … SELECT that inserted nothing is not 0).
 */
export function subscribedEventStatement(
  db: D1Database,
  effect: PostEffect & { payload: ContentEvent },
  now: string,
): D1PreparedStatement {
  const sql = `INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at)
    SELECT ?3, ?1, ?4, 'event', ?5, ?6 WHERE changes() = 1 AND ${SUBSCRIBED} RETURNING id`;
  return eventRowStatement(db, sql, effect.id, effect, now);
}

/**
 * Development (`DEV_OUTBOX=true`): the record of a new post's event that no webhook subscribes to, in the
 * post's batch. A subscribed event is recorded by the `content-events` consumer when it arrives, so
 * every event is recorded once, as before the queue was skipped for unsubscribed events.
 */
export function unsubscribedEventRecordStatement(
  db: D1Database,
  effect: PostEffect & { payload: ContentEvent },
  now: string,
): D1PreparedStatement {
  const sql = `INSERT INTO outbound_effects (id, kind, site_id, subject_id, payload_json, created_at)
    SELECT ?3, 'event:' || ?2, ?1, ?4, ?5, ?6 WHERE NOT ${SUBSCRIBED}`;
  return eventRowStatement(db, sql, newId(), effect, now);
}

/** Ids of the site's live webhooks (`LIVE_WEBHOOK`) subscribed to `eventType`. */
export async function subscribedWebhookIds(
  db: D1Database,
  siteId: string,
  eventType: string,
): Promise<string[]> {
  const results = await drizzle(db)
    .select({ id: w.id })
    .from(w)
    .where(fragment(SUBSCRIBED_WEBHOOK, siteId, eventType))
    .orderBy(asc(w.id))
    .all();
  return results.map((r) => r.id);
}

export interface NewDelivery {
  id: string;
  webhook_id: string;
  site_id: string;
  event_id: string;
  event_type: string;
  body: string;
  created_at: string;
}

/**
 * Writes one delivery per (event, webhook), ignoring pairs that exist (an event redelivered by the queue
 * fans out again: the unique (webhook_id, event_id) key is the one conflict a delivery's row can meet), and
 * answers the deliveries of the event that no attempt has touched yet.
 */
export async function insertDeliveries(
  db: D1Database,
  siteId: string,
  eventId: string,
  rows: NewDelivery[],
): Promise<Pick<DeliveryRow, "id" | "webhook_id">[]> {
  const d = drizzle(db);
  await batch(
    db,
    rows.map((row) =>
      d
        .insert(webhookDeliveries)
        .values({ ...row, status: "pending" })
        .onConflictDoNothing(),
    ),
  );
  return d
    .select({ id: webhookDeliveries.id, webhook_id: webhookDeliveries.webhook_id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.site_id, siteId),
        eq(webhookDeliveries.event_id, eventId),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attempts, 0),
      ),
    )
    .orderBy(asc(webhookDeliveries.id))
    .all();
}

/** A claimed delivery with what its attempt needs from the webhook. */
export type ClaimedDelivery = DeliveryRow & {
  url: string;
  secret_encrypted: string;
  created_by: string | null;
};

/** A delivery read with its webhook's columns, null when the webhook is gone (the LEFT JOIN found none). */
type ClaimRead = DeliveryRow & { [K in "url" | "secret_encrypted" | "created_by"]: WebhookRow[K] | null };

export type Claim =
  | { kind: "claimed"; delivery: ClaimedDelivery }
  /** Delivered, failed, or its webhook is gone: nothing to do. */
  | { kind: "settled" }
  /** Another consumer holds it (a duplicate message) until `until`. */
  | { kind: "busy"; until: string };

/**
 * Takes the delivery for one attempt until `lockUntil` (a duplicate queue message, or a second consumer,
 * finds it busy). A delivery whose webhook was deleted is settled.
 */
export async function claimDelivery(
  db: D1Database,
  id: string,
  now: string,
  lockUntil: string,
): Promise<Claim> {
  const [claim, read] = await batch(db, [
    drizzle(db)
      .update(webhookDeliveries)
      .set({ locked_until: lockUntil })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.status, "pending"),
          or(isNull(webhookDeliveries.locked_until), lte(webhookDeliveries.locked_until, now)),
          sql`EXISTS (SELECT 1 FROM webhooks w
            WHERE w.id = ${webhookDeliveries.webhook_id} AND w.site_id = ${webhookDeliveries.site_id}
              AND ${fragment(LIVE_WEBHOOK)})`,
        ),
      ),
    query<ClaimRead>(
      db,
      `SELECT d.*, w.url, w.secret_encrypted, w.created_by FROM webhook_deliveries d
         LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.site_id = d.site_id AND ${LIVE_WEBHOOK}
         WHERE d.id = ?`,
      id,
    ),
  ]);
  const row = read.rows[0];
  if (!row || row.url === null || row.secret_encrypted === null || row.status !== "pending") {
    return { kind: "settled" };
  }
  if (claim.changes === 0) return { kind: "busy", until: row.locked_until ?? now };
  return { kind: "claimed", delivery: { ...row, url: row.url, secret_encrypted: row.secret_encrypted } };
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** Appends the attempt to the log and sets what it decided: delivered, failed, or pending until `next_attempt_at`. */
export async function recordAttempt(
  db: D1Database,
  id: string,
  attempt: AttemptRecord,
  outcome: { status: DeliveryRow["status"]; next_attempt_at: string | null; settled_at: string | null },
): Promise<void> {
  await drizzle(db)
    .update(webhookDeliveries)
    .set({
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      attempts_json: sql`json_insert(${webhookDeliveries.attempts_json}, '$[#]', json(${JSON.stringify(attempt)}))`,
      last_status_code: attempt.status_code,
      last_error: attempt.error,
      last_attempt_at: attempt.at,
      status: outcome.status,
      next_attempt_at: outcome.next_attempt_at,
      // The settling moment in the column the outcome names; the other keeps what it held.
      ...(outcome.status === "delivered" ? { delivered_at: outcome.settled_at } : {}),
      ...(outcome.status === "failed" ? { failed_at: outcome.settled_at } : {}),
      locked_until: null,
    })
    .where(eq(webhookDeliveries.id, id))
    .run();
}

/** Frees a claimed delivery whose attempt could not be made (nothing was sent). */
export async function releaseDelivery(db: D1Database, id: string): Promise<void> {
  await drizzle(db)
    .update(webhookDeliveries)
    .set({ locked_until: null })
    .where(eq(webhookDeliveries.id, id))
    .run();
}

/** A delivery whose queue message exhausted its retries (dead-letter queue) is failed for good. */
export async function markDeadLettered(db: D1Database, id: string, now: string): Promise<boolean> {
  const result = await drizzle(db)
    .update(webhookDeliveries)
    .set({
      status: "failed",
      failed_at: now,
      next_attempt_at: null,
      locked_until: null,
      last_error: sql`coalesce(${webhookDeliveries.last_error}, 'dead_lettered')`,
    })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending")))
    .run();
  return result.meta.changes > 0;
}

/** One page of the webhook's deliveries, newest first, before the delivery id `before` when given. */
export async function listDeliveries(
  db: D1Database,
  siteId: string,
  webhookId: string,
  limit: number,
  before: string | null,
): Promise<DeliveryRow[]> {
  return drizzle(db)
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhook_id, webhookId),
        eq(webhookDeliveries.site_id, siteId),
        before === null ? undefined : lt(webhookDeliveries.id, before),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit)
    .all();
}

/** Cron: settled deliveries older than `before` leave the log. */
export async function purgeSettledDeliveries(db: D1Database, before: string): Promise<number> {
  const result = await drizzle(db)
    .delete(webhookDeliveries)
    .where(
      and(
        lt(webhookDeliveries.created_at, before),
        ne(webhookDeliveries.status, "pending"),
        notFenced(webhookDeliveries.site_id),
      ),
    )
    .run();
  return result.meta.changes;
}
