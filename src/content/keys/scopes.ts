/**
 * The opt-in scopes of content API keys (the spec's 14, plus `site:code`) and which of them a public
 * (pk_) key may carry. `site:code`: change site settings the renderer outputs as markup (`advanced` in
 * `PATCH /v1/site/settings`), the key form of the `code` permission of site administration
 * (src/lib/site-permissions.ts); `site:write` alone never does (issue 19).
 */
export const SCOPES = [
  "posts:write",
  "posts:read",
  "post_types:read",
  "sites:read",
  "media:read",
  "media:write",
  "site:read",
  "site:write",
  "site:code",
  "seo:read",
  "seo:write",
  "analytics:read",
  "leads:read",
  "export",
  "import",
] as const;

export type Scope = (typeof SCOPES)[number];

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
