/**
 * Transactional outbox of a post change's side effects. The change and its effects are written in ONE
 * D1 batch (the effect rows only if the change's UPDATE changed a row: `changes() = 1`), then delivered
 * (queue message, cache purge, IndexNow) and deleted once delivered (a 2xx from the purge or IndexNow
 * host). A delivery that fails keeps its row with the attempt count, the error and the next attempt's
 * time (backoff); the cron retries due rows, and after `MAX_EFFECT_ATTEMPTS` marks the row given up
 * (kept, counted in /metrics, never retried). So an unpublished post never silently misses its event or
 * its purge (at least once; every event carries its own id for consumers that deduplicate). A deleted
 * media asset's purge rides the same outbox, with the media id in `post_id` (the effect's subject).
 */
import { and, asc, inArray, isNull, lt, lte, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { postEffects } from "../../../../schema/content";
import { newId } from "../../../lib/ids";
import { errorFields } from "../../../lib/log";
import { tracedMessage } from "../../../lib/trace";
import { notFenced } from "../../groups/fence-store";
import type { Env, Services } from "../bindings";
import { deleteEffect, type PostEffect, type PostEffectKind, recordEffectFailure } from "./store";

type PostEffectRow = Pick<
  typeof postEffects.$inferSelect,
  "id" | "site_id" | "post_id" | "kind" | "payload_json" | "attempts"
>;

export type { PostEffect, PostEffectKind } from "./store";

export function postEffect(
  siteId: string,
  postId: string,
  kind: PostEffectKind,
  payload: unknown,
): PostEffect {
  return { id: newId(), site_id: siteId, post_id: postId, kind, payload };
}

const ROW_COLUMNS = {
  id: postEffects.id,
  site_id: postEffects.site_id,
  post_id: postEffects.post_id,
  kind: postEffects.kind,
  payload_json: postEffects.payload_json,
  attempts: postEffects.attempts,
};

async function deliverOne(env: Env, services: Services, row: PostEffectRow): Promise<void> {
  const payload = JSON.parse(row.payload_json) as { urls?: string[] };
  if (row.kind === "event") await env.CONTENT_EVENTS.send(tracedMessage(payload));
  else if (row.kind === "cache_purge")
    await services.cachePurger.purge(row.site_id, row.post_id, payload.urls ?? []);
  else await services.searchNotifier.notify(row.site_id, row.post_id, payload.urls ?? []);
}

/** Attempts (the immediate one included) before the outbox gives an effect up. */
export const MAX_EFFECT_ATTEMPTS = 8;

/** Wait after the n-th failed attempt: 5 minutes, x4 each time, at most 12 hours. */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(5 * 60_000 * 4 ** Math.max(0, failedAttempts - 1), 12 * 3600_000);
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}

async function recordFailure(env: Env, services: Services, row: PostEffectRow, err: unknown, now: number) {
  const attempts = row.attempts + 1;
  const gaveUp = attempts >= MAX_EFFECT_ATTEMPTS;
  const fields = { effect_id: row.id, kind: row.kind, site_id: row.site_id, attempts, ...errorFields(err) };
  if (gaveUp) services.log.error("effect_given_up", fields);
  else services.log.warn("effect_delivery_failed", fields);
  await recordEffectFailure(env.DB, row.id, {
    attempts,
    error: errorText(err),
    nextAttemptAt: gaveUp ? null : new Date(now + retryDelayMs(attempts)).toISOString(),
    gaveUpAt: gaveUp ? new Date(now).toISOString() : null,
  });
}

async function deliverRows(env: Env, services: Services, rows: PostEffectRow[]): Promise<number> {
  let delivered = 0;
  for (const row of rows) {
    try {
      await deliverOne(env, services, row);
    } catch (err) {
      await recordFailure(env, services, row, err, Date.now());
      continue;
    }
    await deleteEffect(env.DB, row.id);
    delivered++;
  }
  return delivered;
}

/** Delivers the given effects (those whose rows the batch actually wrote). */
export async function deliverEffects(env: Env, services: Services, effects: PostEffect[]): Promise<void> {
  if (effects.length === 0) return;
  const rows = await drizzle(env.DB)
    .select(ROW_COLUMNS)
    .from(postEffects)
    .where(
      inArray(
        postEffects.id,
        effects.map((e) => e.id),
      ),
    )
    .orderBy(asc(postEffects.id))
    .all();
  await deliverRows(env, services, rows);
}

/**
 * Delivers effects whose rows a batch that just committed wrote unconditionally (a post's insert: its
 * batch either wrote every row or failed), from memory: no read of the rows back.
 */
export async function deliverWrittenEffects(
  env: Env,
  services: Services,
  effects: PostEffect[],
): Promise<void> {
  const rows = effects.map((e) => ({
    id: e.id,
    site_id: e.site_id,
    post_id: e.post_id,
    kind: e.kind,
    payload_json: JSON.stringify(e.payload),
    attempts: 0,
  }));
  await deliverRows(env, services, rows);
}

/**
 * Cron: delivers effects left behind by a failed or interrupted delivery: rows older than 5 minutes (not
 * in flight), not given up, whose next attempt is due.
 */
export async function redeliverPendingEffects(
  env: Env,
  services: Services,
  now: number,
  limit = 100,
): Promise<number> {
  const rows = await drizzle(env.DB)
    .select(ROW_COLUMNS)
    .from(postEffects)
    .where(
      and(
        isNull(postEffects.gave_up_at),
        notFenced(postEffects.site_id),
        lt(postEffects.created_at, new Date(now - 5 * 60_000).toISOString()),
        or(
          isNull(postEffects.next_attempt_at),
          lte(postEffects.next_attempt_at, new Date(now).toISOString()),
        ),
      ),
    )
    .orderBy(asc(postEffects.created_at))
    .limit(limit)
    .all();
  return deliverRows(env, services, rows);
}
