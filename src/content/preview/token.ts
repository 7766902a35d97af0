/**
 * Preview link tokens (issue 31): `p2.<32 random bytes, base64url>`, stored only as their SHA-256 in the
 * link's row (`preview_links`), which names what granted the link. A leaked table mints no link, and a
 * token says nothing of its post, site or expiry.
 */
import { base64url, sha256Base64url } from "../keys/key-hash";

/** The longest a link lives, and the default. */
export const PREVIEW_MAX_SECONDS = 24 * 60 * 60;
export const PREVIEW_DEFAULT_SECONDS = 60 * 60;

const TOKEN = /^p2\.[A-Za-z0-9_-]{43}$/;

/** A new token and the hash its row stores. */
export async function newPreviewToken(): Promise<{ token: string; hash: string }> {
  const token = `p2.${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { token, hash: await sha256Base64url(token) };
}

/** The hash to look a token up by, or null when it cannot be one of ours (checked before any storage read). */
export async function previewTokenHash(token: string): Promise<string | null> {
  return TOKEN.test(token) ? sha256Base64url(token) : null;
}
