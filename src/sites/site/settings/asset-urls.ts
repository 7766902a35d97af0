/**
 * URL rules for settings assets. Two levels:
 * - site asset rule (spec (b), `logo_url`, `favicon_png_url`, `favicon_ico_url`,
 *   `seo.default_og_image`): absolute `http:`/`https:` URL or an absolute path of the site.
 * - strict rule (logo sources, favicon kit, internal ad creatives): `https://host/path` or a path
 *   of the site.
 * Both refuse what turns an attribute into script or a different origin: `javascript:`/`data:`
 * (only the two schemes pass), protocol-relative `//host` and `/\host` (browsers read a backslash
 * as a slash), credentials in the authority (`https://bank.example@evil.test/`), and whitespace,
 * quotes, backticks, angle brackets or control characters that break out of an HTML attribute.
 */

export const MAX_ASSET_URL_LENGTH = 2048;

export const ASSET_URL_RULE = `must be an http(s) URL or an absolute path of the site (max ${MAX_ASSET_URL_LENGTH} characters, no spaces, quotes or angle brackets)`;
export const STRICT_URL_RULE = `must be https://host/path or an absolute path of the site (max ${MAX_ASSET_URL_LENGTH} characters, no spaces, quotes or angle brackets)`;

const UNSAFE_CHARACTERS = /[\s"'`<>\\\p{Cc}]/u;
const ABSOLUTE_URL = /^(https?):\/\/([^/?#]*)(.*)$/is;

function hasSafeCharacters(value: string): boolean {
  return value.length > 0 && value.length <= MAX_ASSET_URL_LENGTH && !UNSAFE_CHARACTERS.test(value);
}

/** An absolute path of the site itself: `/x`, never `//host`. */
export function isSitePath(value: string): boolean {
  return hasSafeCharacters(value) && value.startsWith("/") && !value.startsWith("//");
}

function parseAbsolute(value: string): { scheme: string; rest: string } | null {
  if (!hasSafeCharacters(value)) return null;
  const match = ABSOLUTE_URL.exec(value);
  if (!match) return null;
  const [, scheme, authority, rest] = match;
  if (!scheme || !authority || authority.includes("@")) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return null;
  }
  if (!parsed.hostname) return null;
  return { scheme: scheme.toLowerCase(), rest: rest ?? "" };
}

/** Spec (b): `http(s)` absolute URL or an absolute path of the site. */
export function isSiteAssetUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (isSitePath(value)) return true;
  return parseAbsolute(value) !== null;
}

/** The strict favicon rule: `https://host/path` (a path after the host, `/` included) or a path of the site. */
export function isStrictAssetUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (isSitePath(value)) return true;
  const parsed = parseAbsolute(value);
  return parsed !== null && parsed.scheme === "https" && parsed.rest.startsWith("/");
}
