/**
 * The cron's publication of scheduled posts that have come due (every minute; the hourly run too). Readers
 * already see such a post as published, dated at its publication moment (`readUpdatedAt`, so `since`
 * shows it going live before any cron); this stores it so (updated_at = published_at, the revision bump
 * readers already counted) and emits `post.published` (webhooks/events.ts) exactly once when it is public:
 * the event's outbox row is written in the batch of the guarded UPDATE, only when that UPDATE changed the
 * row, so a second or concurrent run, or an edit that got there first (it stores the due post as published
 * and announces it), leaves nothing to emit.
 */
import type { SiteProjection } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import type { Env, Services } from "../core/bindings";
import { deliverEffects, type PostEffect, postEffect } from "../core/effects/pending";
import { effectAfterUpdateStatement } from "../core/effects/store";
import { getSite } from "../site/store";
import { postEvent } from "../webhooks/events";
import { dueScheduledPosts, isPublic, type PostRow, publicTypeSlugs, publishDueStatement } from "./store";

interface SiteContext {
  site: SiteProjection | null;
  publicTypes: Set<string>;
}

/** The `post.published` effect of a due post, or null when nobody outside sees it (private type, members only). */
function publicationEffect(env: Env, context: SiteContext, post: PostRow, now: string): PostEffect | null {
  const next: PostRow = {
    ...post,
    status: "published",
    updated_at: laterOf(post.updated_at, post.published_at!),
  };
  if (!context.site || !isPublic(next, now, context.publicTypes)) return null;
  const event = postEvent("post.published", context.site, next, now, env.PLATFORM_DOMAIN);
  return { ...postEffect(post.site_id, post.id, "event", event), id: event.id };
}

function laterOf(a: string, b: string): string {
  return a >= b ? a : b;
}

/** Publishes up to `limit` due posts per call, in batches of 50; returns how many it stored as published. */
export async function publishDuePosts(
  env: Env,
  services: Services,
  now: string,
  limit = 500,
): Promise<number> {
  let published = 0;
  const sites = new Map<string, SiteContext>();
  for (let seen = 0; seen < limit; ) {
    const due = await dueScheduledPosts(env.DB, now, 50);
    if (due.length === 0) break;
    seen += due.length;
    const effects: PostEffect[] = [];
    const statements: D1PreparedStatement[] = [];
    for (const post of due) {
      let context = sites.get(post.site_id);
      if (!context) {
        context = {
          site: await getSite(env.DB, post.site_id),
          publicTypes: await publicTypeSlugs(env.DB, post.site_id),
        };
        sites.set(post.site_id, context);
      }
      statements.push(publishDueStatement(env.DB, post, now));
      const effect = publicationEffect(env, context, post, now);
      if (effect) {
        effects.push(effect);
        statements.push(effectAfterUpdateStatement(env.DB, effect, now));
      }
    }
    const outcomes = await batch(env.DB, statements);
    // Only the UPDATEs count (an effect row follows its UPDATE); D1 counts trigger changes too: > 0 is applied.
    let i = 0;
    for (const post of due) {
      if ((outcomes[i]?.changes ?? 0) > 0) published++;
      i += effects.some((e) => e.post_id === post.id) ? 2 : 1;
    }
    await deliverEffects(env, services, effects);
  }
  return published;
}
