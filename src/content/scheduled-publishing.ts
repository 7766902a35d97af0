/**
 * Cron: scheduled posts whose time has come are stored as published and announced (`post.published`).
 * Readers saw them as published from their date on (no job is needed for that); the flip is what makes
 * the publication an event, exactly once: the guarded UPDATE and the event's outbox row are one batch,
 * and an edit that got there first (it stores a due post as published and announces it) wins.
 * `updated_at` moves to the flip, so incremental sync (`since`) picks the post up.
 */
import type { SiteProjection } from "../lib/rpc";
import type { Env, Services } from "./bindings";
import { deliverEffects, effectAfterUpdateStatement, type PostEffect, postEffect } from "./effects/pending";
import { dueScheduledPosts, isPublic, publicTypeSlugs, publishDueStatement } from "./store/posts";
import { getSite } from "./store/sites";
import { postEvent } from "./webhooks/events";

const PAGE = 100;
/** Posts one run flips at most; the next run (5 minutes later) takes the rest. */
const MAX_PER_RUN = 1000;

export async function publishDueScheduledPosts(env: Env, services: Services, now: string): Promise<number> {
  const sites = new Map<string, { site: SiteProjection | null; publicTypes: Set<string> }>();
  let published = 0;
  for (let round = 0; round * PAGE < MAX_PER_RUN; round++) {
    const due = await dueScheduledPosts(env.DB, now, PAGE);
    for (const post of due) {
      let context = sites.get(post.site_id);
      if (!context) {
        context = {
          site: await getSite(env.DB, post.site_id),
          publicTypes: await publicTypeSlugs(env.DB, post.site_id),
        };
        sites.set(post.site_id, context);
      }
      const next = {
        ...post,
        status: "published" as const,
        updated_at: post.updated_at > now ? post.updated_at : now,
      };
      const effects: PostEffect[] = [];
      if (context.site && isPublic(next, now, context.publicTypes)) {
        const event = postEvent("post.published", context.site, next, now, env.PLATFORM_DOMAIN);
        effects.push({ ...postEffect(post.site_id, post.id, "event", event), id: event.id });
      }
      const [flip] = await env.DB.batch([
        publishDueStatement(env.DB, post, now),
        ...effects.map((effect) => effectAfterUpdateStatement(env.DB, effect, now)),
      ]);
      if (flip!.meta.changes === 0) continue;
      await deliverEffects(env, services, effects);
      published++;
    }
    if (due.length < PAGE) break;
  }
  return published;
}
