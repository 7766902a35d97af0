/** `PATCH /v1/posts/{reference}/seo`: allowed SEO keys merged into the post's `seo_json`. */
import type { Env, Services } from "../core/bindings";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { getSite } from "../site/store";
import { resolveEditablePost } from "./resolve";
import { actorStamp, checkChange, updateStamp } from "./roles";
import { editPostFields } from "./service";
import { POST_SEO_KEYS, seoView } from "./shapes";

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
  auth: KeyContext,
  reference: string,
  language: string | null,
  patch: Record<string, unknown>,
  now: string,
): Promise<Record<string, unknown>> {
  const { siteId } = auth;
  const row = await resolveEditablePost(env.DB, siteId, reference, language, now);
  // An SEO edit is an edit: the roles' rules of a PATCH (roles.ts); it records who made it.
  checkChange(auth, row, now, "Changing this post's SEO");
  // A JSON merge patch in one statement (as mergeSeo: null removes a key): concurrent edits never conflict.
  // A published public post announces it (post.updated, an outbox row of the same batch).
  const site = await getSite(env.DB, siteId);
  const by = updateStamp(actorStamp(auth));
  const next = await editPostFields(env, services, { siteId, site, id: row.id }, by, patch, null);
  return seoView(next);
}
