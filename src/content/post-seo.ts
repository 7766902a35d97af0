/** `PATCH /v1/posts/{reference}/seo`: allowed SEO keys merged into the post's `seo_json`. */
import type { Env, Services } from "./bindings";
import { deliverEffects, effectAfterUpdateStatement, type PostEffect, postEffect } from "./effects/pending";
import { fail } from "./errors";
import { editPost, postChangeEvent } from "./post-service";
import { POST_SEO_KEYS, parseSeo, seoView } from "./routes/post-shapes";
import { resolveEditablePost } from "./rules/resolve";
import { type PostRow, publicTypeSlugs } from "./store/posts";
import { getSite } from "./store/sites";
import { postEvent } from "./webhooks/events";

/** The editable keys a patch sends (null included: it removes the key); none is 400 NOTHING_EDITABLE. */
export function seoPatch(body: Record<string, unknown>): Record<string, unknown> {
  const patch = Object.fromEntries(
    POST_SEO_KEYS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]),
  );
  if (Object.keys(patch).length === 0) {
    fail("NOTHING_EDITABLE", `The body contains no editable SEO key (${POST_SEO_KEYS.join(", ")}).`);
  }
  return patch;
}

/** `seo` with the patch applied: null removes a key, any other value replaces it. */
export function mergeSeo(
  seo: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...seo };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/**
 * Applies the patch to the site's post `reference` (resolved as PATCH resolves it); answers the SEO after
 * it. A published public post announces the change (`post.updated`, an outbox row of the edit's batch).
 */
export async function patchPostSeo(
  env: Env,
  services: Services,
  siteId: string,
  reference: string,
  language: string | null,
  patch: Record<string, unknown>,
  now: string,
): Promise<Record<string, unknown>> {
  const row = await resolveEditablePost(env.DB, siteId, reference, language, now);
  const site = await getSite(env.DB, siteId);
  const publicTypes = await publicTypeSlugs(env.DB, siteId);
  const pending: { effects: PostEffect[] } = { effects: [] };
  const announce = (existing: PostRow, next: PostRow): D1PreparedStatement[] => {
    const updated = site !== null && postChangeEvent(existing, next, now, publicTypes) === "post.updated";
    const event = updated ? postEvent("post.updated", site, next, now, env.PLATFORM_DOMAIN) : null;
    pending.effects = event ? [{ ...postEffect(siteId, next.id, "event", event), id: event.id }] : [];
    return pending.effects.map((effect) => effectAfterUpdateStatement(env.DB, effect, now));
  };
  // Merged into the freshly read seo_json; a concurrent edit makes editPost re-read and merge again.
  const { next } = await editPost(
    env,
    row.site_id,
    row,
    async (existing) => ({
      ...existing,
      seo_json: JSON.stringify(mergeSeo(parseSeo(existing), patch)),
      updated_at: now,
    }),
    announce,
  );
  await deliverEffects(env, services, pending.effects);
  return seoView(next);
}
