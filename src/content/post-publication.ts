/**
 * The cron's publication of scheduled posts that have come due. Readers already see such a post as
 * published (and dated at its publication moment: `readUpdatedAt`); this stores it so, and emits the
 * `post.published` event exactly once: the event's outbox row is written in the batch of the guarded
 * UPDATE, only when that UPDATE changed the row, so a second run (or a concurrent one) emits nothing.
 */
import { newId } from "../lib/ids";
import type { SiteProjection } from "../lib/rpc";
import type { Env, Services } from "./bindings";
import { postUrl } from "./effects/outbound";
import { deliverEffects, effectAfterUpdateStatement, type PostEffect, postEffect } from "./effects/pending";
import { dueScheduledPosts, type PostRow, publishDueStatement } from "./store/posts";
import { getSite } from "./store/sites";

export interface PublishedEvent {
  /** Unique per event: delivery is at least once, consumers may deduplicate by it. */
  id: string;
  type: "post.published";
  site_id: string;
  post_id: string;
  slug: string;
  language: string;
  url: string | null;
  published_at: string;
  occurred_at: string;
}

function publicationEffect(site: SiteProjection | null, post: PostRow, now: string): PostEffect {
  const event: PublishedEvent = {
    id: newId(),
    type: "post.published",
    site_id: post.site_id,
    post_id: post.id,
    slug: post.slug,
    language: post.language,
    url: site ? postUrl(site, post) : null,
    published_at: post.published_at!,
    occurred_at: now,
  };
  return { ...postEffect(post.site_id, post.id, "event", event), id: event.id };
}

/** Publishes up to `limit` due posts per call, in batches of 50; returns how many it published. */
export async function publishDuePosts(
  env: Env,
  services: Services,
  now: string,
  limit = 500,
): Promise<number> {
  let published = 0;
  const sites = new Map<string, SiteProjection | null>();
  while (published < limit) {
    const due = await dueScheduledPosts(env.DB, now, 50);
    if (due.length === 0) break;
    const effects: PostEffect[] = [];
    const statements: D1PreparedStatement[] = [];
    for (const post of due) {
      if (!sites.has(post.site_id)) sites.set(post.site_id, await getSite(env.DB, post.site_id));
      const effect = publicationEffect(sites.get(post.site_id)!, post, now);
      effects.push(effect);
      statements.push(
        publishDueStatement(env.DB, post, now),
        effectAfterUpdateStatement(env.DB, effect, now),
      );
    }
    await env.DB.batch(statements);
    published += due.length;
    await deliverEffects(env, services, effects);
  }
  return published;
}
