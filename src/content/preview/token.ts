/**
 * Preview link tokens (issue 31; site groups, issue 38): `p3.<site id>.<32 random bytes, base64url>`, stored
 * only as their SHA-256 in the link's row (`preview_links`), which names what granted the link. A leaked
 * table mints no link. The token names its site, so the keyless read finds the site's group
 * (docs/decisions/previews.md); it says nothing of its post or expiry, and the site id is covered by the
 * hash: a token whose site id was changed is an unknown token.
 */
import { parseId } from "../../lib/ids";
import { base64url, sha256Base64url } from "../keys/key-hash";

/** The longest a link lives, and the default. */
export const PREVIEW_MAX_SECONDS = 24 * 60 * 60;
export const PREVIEW_DEFAULT_SECONDS = 60 * 60;

const TOKEN = /^p3\.([0-9A-Za-z-]{26,36})\.[A-Za-z0-9_-]{43}$/;

/** A new token of a link of `siteId`'s and the hash its row stores. */
export async function newPreviewToken(siteId: string): Promise<{ token: string; hash: string }> {
  const token = `p3.${siteId}.${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { token, hash: await sha256Base64url(token) };
}

/**
 * The site a token names and the hash to look it up by, or null when it cannot be one of ours (checked
 * before any storage read; a site id not in its canonical form is no token of ours either).
 */
export async function parsePreviewToken(token: string): Promise<{ siteId: string; hash: string } | null> {
  const named = TOKEN.exec(token)?.[1];
  if (named === undefined || parseId(named) !== named) return null;
  return { siteId: named, hash: await sha256Base64url(token) };
}
