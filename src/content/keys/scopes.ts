import type { Scope } from "../../lib/key-scopes";

export { SCOPES, type Scope } from "../../lib/key-scopes";

/**
 * Scopes the spec lists that gate no operation today (docs/decisions/key-editing.md): `sites:read` is
 * accepted and kept on the key, reserved for a read of the site's public facts across the API; the site's
 * own reads are `site:read` (a secret key's) and what every key's site answers. A key whose scopes are only
 * reserved ones can call nothing: creating or editing one answers with a `RESERVED_SCOPE` warning.
 */
export const RESERVED_SCOPES: readonly Scope[] = ["sites:read"];

/**
 * Read scopes a `pk_` key may carry. A public key is embedded in browser pages, so it never carries a
 * write scope, nor `site:read` (editable settings, ck_ only per spec), `analytics:read` (site-private
 * numbers), `leads:read` (personal data) or `export`.
 */
export const PUBLIC_KEY_SCOPES: readonly Scope[] = [
  "posts:read",
  "post_types:read",
  "sites:read",
  "media:read",
  "seo:read",
];
