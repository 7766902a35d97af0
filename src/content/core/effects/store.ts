/**
 * The outbox's SQL (core/effects/pending.ts): a post change's effect rows (`post_effects`), their failed
 * attempts and deletion once delivered, the counts of /metrics; and the development outbox of outbound
 * calls (`outbound_effects`, core/effects/outbound.ts). Through drizzle's query builder, but for the effect
 * row chained on `changes()` (an `INSERT … SELECT … WHERE changes() = 1`, which the builder cannot say).
 */
import { asc, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { outboundEffects, postEffects } from "../../../../schema/content";
import { newId } from "../../../lib/ids";
import { batch, prepared } from "../../../lib/sql";

export type PostEffectKind = (typeof postEffects.$inferSelect)["kind"];

/** A side effect of a post change (or a media deletion: its purge), as written to the outbox. */
export interface PostEffect {
  id: string;
  site_id: string;
  post_id: string;
  kind: PostEffectKind;
  payload: unknown;
}

/**
 * The outbox row of `effect`, inserted only when the statement just before it in the same batch changed
 * exactly one row (the guarded UPDATE of the post). Place it directly after that UPDATE.
 */
export function effectAfterUpdateStatement(
  db: D1Database,
  effect: PostEffect,
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at)
       SELECT ?, ?, ?, ?, ?, ? WHERE changes() = 1`,
    )
    .bind(effect.id, effect.site_id, effect.post_id, effect.kind, JSON.stringify(effect.payload), now);
}

/** A failed attempt: its count and error, and the next attempt's time, or the time the outbox gave up. */
export async function recordEffectFailure(
  db: D1Database,
  id: string,
  failure: { attempts: number; error: string; nextAttemptAt: string | null; gaveUpAt: string | null },
): Promise<void> {
  await drizzle(db)
    .update(postEffects)
    .set({
      attempts: failure.attempts,
      last_error: failure.error,
      next_attempt_at: failure.nextAttemptAt,
      gave_up_at: failure.gaveUpAt,
    })
    .where(eq(postEffects.id, id))
    .run();
}

/** A delivered effect's row, gone. */
export async function deleteEffect(db: D1Database, id: string): Promise<void> {
  await drizzle(db).delete(postEffects).where(eq(postEffects.id, id)).run();
}

/** Outbox state for /metrics: rows waiting for delivery and rows given up, by kind. */
export async function outboxCounts(
  db: D1Database,
): Promise<{ kind: PostEffectKind; pending: number; given_up: number }[]> {
  const t = postEffects;
  return drizzle(db)
    .select({
      kind: t.kind,
      pending: sql<number>`sum(${t.gave_up_at} IS NULL)`,
      given_up: sql<number>`sum(${t.gave_up_at} IS NOT NULL)`,
    })
    .from(t)
    .groupBy(t.kind)
    .orderBy(asc(t.kind))
    .all();
}

/** A row of the development outbox (`outbound_effects`): what would have been sent. */
export interface OutboundRecord {
  kind: string;
  siteId: string;
  subjectId: string | null;
  payload: unknown;
}

function outboundEffectStatement(db: D1Database, r: OutboundRecord): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .insert(outboundEffects)
      .values({
        id: newId(),
        kind: r.kind,
        site_id: r.siteId,
        subject_id: r.subjectId,
        payload_json: JSON.stringify(r.payload),
        created_at: new Date().toISOString(),
      }),
  );
}

/** An outbound call recorded instead of sent (DEV_OUTBOX=true). */
export async function recordOutboundEffect(db: D1Database, record: OutboundRecord): Promise<void> {
  await outboundEffectStatement(db, record).run();
}

/** Several records in one batch; none writes nothing. */
export async function recordOutboundEffects(db: D1Database, records: OutboundRecord[]): Promise<void> {
  if (records.length > 0)
    await batch(
      db,
      records.map((r) => outboundEffectStatement(db, r)),
    );
}
