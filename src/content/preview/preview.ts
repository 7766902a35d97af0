/**
 * Preview of a post as it is now (draft or scheduled included) by a signed link that needs no key: the
 * link is made by a ck_ key that may edit the post, lives at most 24 h, and ends when the post's preview
 * secret is rotated or the post is deleted (docs/decisions/content-b.md, "Preview links").
 */

import type { Env } from "../core/bindings";
import { problem } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { postDetail } from "../posts/public-reads";
import { resolveEditablePost } from "../posts/resolve";
import { effectiveStatus, type ListableStatus } from "../posts/store";
import { previewSecret, readPreview, rotatePreviewSecret } from "./store";
import { parsePreview, previewHolds, signPreview } from "./token";

/** A preview link of the post, on `origin` (the public origin the request came through). */
export async function createPreview(
  env: Env,
  key: KeyContext,
  target: { reference: string; language: string | null },
  seconds: number,
  origin: string,
): Promise<{ url: string; expires_at: string }> {
  const now = new Date();
  const post = await resolveEditablePost(
    env.DB,
    key.siteId,
    target.reference,
    target.language,
    now.toISOString(),
  );
  const secret = await previewSecret(env.DB, key.siteId, post.id, now.toISOString());
  const expires = Math.floor(now.getTime() / 1000) + seconds;
  const token = await signPreview(secret, post.id, expires);
  return { url: `${origin}/v1/preview/${token}`, expires_at: new Date(expires * 1000).toISOString() };
}

/** Ends every preview link of the post. */
export async function endPreviews(
  env: Env,
  key: KeyContext,
  target: { reference: string; language: string | null },
): Promise<void> {
  const now = new Date().toISOString();
  const post = await resolveEditablePost(env.DB, key.siteId, target.reference, target.language, now);
  await rotatePreviewSecret(env.DB, key.siteId, post.id, now);
}

/** The PostDetail a link shows; any invalid, expired, rotated or deleted link is the same 404. */
export async function previewedPost(env: Env, token: string) {
  const missing = () =>
    problem("NOT_FOUND", "No such preview (the link is invalid, expired or was revoked).");
  const claim = parsePreview(token);
  if (!claim) throw missing();
  const read = await readPreview(env.DB, claim.postId);
  const now = new Date();
  if (!read || !(await previewHolds(claim, read.secret, Math.floor(now.getTime() / 1000)))) throw missing();
  const at = now.toISOString();
  return {
    ...postDetail(env, read.post, read.site, read.media, at),
    status: effectiveStatus(read.post, at) as ListableStatus,
  };
}
