/**
 * The opt-in scopes of content API keys (the spec's 14, plus `site:code`) and which of them a public
 * (pk_) key may carry. `site:code`: change site settings the renderer outputs as markup (`advanced` in
 * `PATCH /v1/site/settings`), the key form of the `code` permission of site administration
 * (site-permissions.ts); `site:write` alone never does (issue 19).
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
