/**
 * Transactional outbox of a post change's side effects. The change and its effects are written in ONE
 * D1 batch (the effect rows only if the change's UPDATE changed a row: `changes() = 1`), then delivered
 * (queue message, cache purge, IndexNow) and deleted. A delivery that fails leaves its row behind and
 * the cron delivers it later, so an unpublished post never misses its event or its purge (at least once;
 * every event carries its own id for consumers that deduplicate). A deleted media asset's purge rides
 * the same outbox, with the media id in `post_id` (the effect's subject).
 */
import { asc, inArray, lt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { postEffects } from "../../../schema/content";
import { newId } from "../../lib/ids";
import { errorFields } from "../../lib/log";
import type { Env, Services } from "../bindings";

type PostEffectRow = Pick<
  typeof postEffects.$inferSelect,
  "id" | "site_id" | "post_id" | "kind" | "payload_json"
>;

export type PostEffectKind = PostEffectRow["kind"];

export interface PostEffect {
  id: string;
  site_id: string;
  post_id: string;
  kind: PostEffectKind;
  payload: unknown;
}

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
};

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

async function deliverOne(env: Env, services: Services, row: PostEffectRow): Promise<void> {
  const payload = JSON.parse(row.payload_json) as { urls?: string[] };
  if (row.kind === "event") await env.CONTENT_EVENTS.send(payload);
  else if (row.kind === "cache_purge")
    await services.cachePurger.purge(row.site_id, row.post_id, payload.urls ?? []);
  else await services.searchNotifier.notify(row.site_id, row.post_id, payload.urls ?? []);
}

async function deliverRows(env: Env, services: Services, rows: PostEffectRow[]): Promise<number> {
  let delivered = 0;
  for (const row of rows) {
    try {
      await deliverOne(env, services, row);
    } catch (err) {
      // Left in the outbox; the cron retries it.
      services.log.warn("effect_delivery_failed", {
        effect_id: row.id,
        kind: row.kind,
        site_id: row.site_id,
        ...errorFields(err),
      });
      await env.DB.prepare("UPDATE post_effects SET attempts = attempts + 1 WHERE id = ?").bind(row.id).run();
      continue;
    }
    await env.DB.prepare("DELETE FROM post_effects WHERE id = ?").bind(row.id).run();
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

/** Cron: delivers effects left behind (older than `before`) by a failed or interrupted delivery. */
export async function redeliverPendingEffects(
  env: Env,
  services: Services,
  before: string,
  limit = 100,
): Promise<number> {
  const rows = await drizzle(env.DB)
    .select(ROW_COLUMNS)
    .from(postEffects)
    .where(lt(postEffects.created_at, before))
    .orderBy(asc(postEffects.created_at))
    .limit(limit)
    .all();
  return deliverRows(env, services, rows);
}
