/**
 * Preview of a post as it is now (draft or scheduled included) by a link that needs no key
 * (docs/decisions/previews.md). A ck_ key that may edit the post makes the link, or a signed-in person who
 * may (the dashboard route, issue 34); the link lives at most 24 h and ends with what granted it: its post
 * deleted; its site transferred, deleted, archived or deactivated; the key that made it revoked (its
 * creator's grant ending revokes it) or carried over; the person who made it losing their grant on the
 * site (removed, role changed, account erased: identity's grant ending); or every link of the post ended
 * by `DELETE …/preview`.
 */

import { bearerRefusal } from "../../lib/bearer";
import type { ApiError } from "../../lib/problem";
import type { Env } from "../core/bindings";
import { clockNow } from "../core/clock";
import { problem } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { siteNotFound } from "../keys/site-staff";
import { postDetail } from "../posts/public-reads";
import { resolveEditablePost } from "../posts/resolve";
import { checkPreview } from "../posts/roles";
import { effectiveStatus, type ListableStatus } from "../posts/store";
import { endPostPreviews, insertPreviewLink, readPreview } from "./store";
import { newPreviewToken } from "./token";

/** A preview link of the post, on `origin` (the public origin the request came through). */
export async function createPreview(
  env: Env,
  key: KeyContext,
  target: { reference: string; language: string | null },
  seconds: number,
  origin: string,
): Promise<{ url: string; expires_at: string }> {
  const now = new Date(clockNow());
  const post = await resolveEditablePost(
    env.DB,
    key.siteId,
    target.reference,
    target.language,
    now.toISOString(),
  );
  // A person previews their own posts, or everyone's with posts:edit_any (posts/roles.ts).
  checkPreview(key, post);
  const { token, hash } = await newPreviewToken(key.siteId);
  const expiresAt = new Date(now.getTime() + seconds * 1000).toISOString();
  const stored = await insertPreviewLink(env.DB, {
    tokenHash: hash,
    siteId: key.siteId,
    postId: post.id,
    by:
      key.actor.kind === "person"
        ? { kind: "person", userId: key.actor.userId }
        : { kind: "key", keyId: key.keyId },
    now: now.toISOString(),
    expiresAt,
  });
  if (!stored) {
    // A person's: the site has no owner content knows of (a removed site), answered as a missing site.
    if (key.actor.kind === "person") throw siteNotFound();
    // The key was revoked or carried over since it was authenticated: refused as such a key is.
    throw bearerRefusal("invalid", "The API key is invalid or revoked.");
  }
  return { url: `${origin}/v1/preview/${token}`, expires_at: expiresAt };
}

/** Ends every preview link of the post. */
export async function endPreviews(
  env: Env,
  key: KeyContext,
  target: { reference: string; language: string | null },
): Promise<void> {
  const now = new Date(clockNow()).toISOString();
  const post = await resolveEditablePost(env.DB, key.siteId, target.reference, target.language, now);
  checkPreview(key, post);
  await endPostPreviews(env.DB, key.siteId, post.id, now);
}

/**
 * The one answer of a link that shows nothing: malformed, of a site content does not know, unknown in its
 * site's group, expired or ended.
 */
export function previewMissing(): ApiError {
  return problem("NOT_FOUND", "No such preview (the link is invalid, expired or was revoked).");
}

/**
 * The PostDetail a link shows (`link`: its token parsed by preview/token.ts, `env` routed to the token's
 * site's group). Any invalid, expired or ended link is the same 404 (same body): a holder learns nothing of
 * why, so a dead link is no oracle of a transfer, a deletion or a revocation.
 */
export async function previewedPost(env: Env, link: { siteId: string; hash: string }) {
  const at = new Date(clockNow()).toISOString();
  const read = await readPreview(env.DB, link.hash, at);
  if (!read || read.site.id !== link.siteId) throw previewMissing();
  return {
    ...postDetail(env, read.post, read.site, read.media, at),
    status: effectiveStatus(read.post, at) as ListableStatus,
  };
}
