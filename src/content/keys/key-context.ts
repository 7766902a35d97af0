/** The authenticated API key of a `/v1` request, as handlers read it from `c.get("auth")`. */
import type { SiteProjection } from "../../lib/rpc";
import type { SitePermission } from "../../lib/site-permissions";
import type { KeyKind } from "./key-hash";
import type { Scope } from "./scopes";

/**
 * What a public URL of the key's site is built from (`postUrl`, `siteHost`): read in the key lookup's own
 * join with the site, so a read that answers with URLs spends no extra storage hop on the site.
 */
export type SiteAddress = Pick<SiteProjection, "id" | "slug" | "primary_domain" | "default_language">;

/** The address of a site read whole (a person's or an agent's site projection), and nothing more of it. */
export const siteAddressOf = (site: SiteAddress): SiteAddress => ({
  id: site.id,
  slug: site.slug,
  primary_domain: site.primary_domain,
  default_language: site.default_language,
});

/**
 * What a write reads of the key's site with the key itself (the write's fresh key lookup, never the
 * isolate's cached one): the site projection, the key's author persona and the post types.
 */
export interface WriteContext {
  site: SiteProjection;
  /** The key's persona on the site, or null before its first post made it. */
  persona: { slug: string; display_name: string } | null;
  /** Enabled post types. */
  postTypes: ReadonlySet<string>;
  /** Public post types (enabled or not, as the public listing counts them). */
  publicPostTypes: ReadonlySet<string>;
}

/**
 * Who acts (issue 34): an API key (an integration, bylined with its creator's context) or a signed-in person
 * on the dashboard routes (`/api/v1/sites/{site_id}/…`), whose site permissions decide what they may do.
 * One implementation serves both: the routes differ only in how they authenticate.
 */
export type Actor =
  | {
      kind: "key";
      keyId: string;
      /** The key's name: who-made-what records a key's writes by it (posts/roles.ts). */
      name?: string;
    }
  | { kind: "person"; userId: string; permissions: ReadonlySet<SitePermission> };

export interface KeyContext {
  /** Who acts on this request. */
  actor: Actor;
  /** The key's id; for a person, the gate and idempotency scope of (person, site). */
  keyId: string;
  siteId: string;
  /** The key's site, as far as its URLs need it (from the key lookup). */
  site: SiteAddress;
  kind: KeyKind;
  scopes: ReadonlySet<Scope>;
  /** The staff user who created the key (authorship context); null on legacy keys. */
  createdBy: string | null;
  /** Display name of the creator's byline (authorship context); null on keys created before it was recorded. */
  authorName: string | null;
  /**
   * The site's content version as the key lookup read it (the isolate's cached lookup may be up to
   * `KEY_CONTEXT_TTL_MS` old): part of the edge cache key of public post answers.
   */
  contentVersion: number;
  /** Set when the key was read fresh for this request (writes, lead reads, exports). */
  write?: WriteContext;
}
