/**
 * Preview links (issue 22): `p1.<post id>.<expiry, unix seconds>.<MAC>`, the MAC an HMAC-SHA-256 (first
 * 16 bytes, base64url) keyed with the post's preview secret over the post id and expiry. Rotating the
 * secret makes every MAC made with the old one wrong, so it ends every link at once.
 */
import { base64url, base64urlDecode, timingSafeEqual } from "../keys/key-hash";

/** The longest a link lives, and the default. */
export const PREVIEW_MAX_SECONDS = 24 * 60 * 60;
export const PREVIEW_DEFAULT_SECONDS = 60 * 60;
const MAC_BYTES = 16;
const encoder = new TextEncoder();

export function newPreviewSecret(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function mac(secret: string, postId: string, expires: number): Promise<Uint8Array> {
  // Imported per call: one key per post, so an isolate-wide key cache would only grow.
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = await crypto.subtle.sign("HMAC", key, encoder.encode(`preview.v1.${postId}.${expires}`));
  return new Uint8Array(sig).slice(0, MAC_BYTES);
}

export async function signPreview(secret: string, postId: string, expires: number): Promise<string> {
  return `p1.${postId}.${expires}.${base64url(await mac(secret, postId, expires))}`;
}

export interface PreviewClaim {
  postId: string;
  expires: number;
  mac: Uint8Array;
}

/** The parts of a token, or null when it cannot be one of ours (checked before any storage read). */
export function parsePreview(token: string): PreviewClaim | null {
  const match = /^p1\.([0-9A-Za-z-]{26,36})\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return null;
  const bytes = base64urlDecode(match[3]!);
  if (!bytes || bytes.length !== MAC_BYTES) return null;
  return { postId: match[1]!, expires: Number(match[2]), mac: bytes };
}

/** Whether the claim is live at `nowSeconds` (never beyond the longest life) and signed with `secret`. */
export async function previewHolds(
  claim: PreviewClaim,
  secret: string,
  nowSeconds: number,
): Promise<boolean> {
  if (claim.expires <= nowSeconds || claim.expires > nowSeconds + PREVIEW_MAX_SECONDS) return false;
  return timingSafeEqual(claim.mac, await mac(secret, claim.postId, claim.expires));
}
