/** API key rows. Only the keyed hash of a key is stored; lookups are by that hash. */
import { and, desc, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiKeys, type sites } from "../../../schema/content";
import { carriedOver } from "../transfers/store";
import type { KeyKind } from "./key-hash";
import type { Scope } from "./scopes";

/** A key as read back: never its hash, nor the revocation (only active keys are read). */
export type ApiKeyRow = Omit<
  typeof apiKeys.$inferSelect,
  "key_hash" | "revoked_at" | "revoked_by" | "org_id" | "carried_over_at" | "carried_over_from"
>;

/** A key as listed to its site's administrators: with what a transfer carried over (issue 19). */
export type ListedApiKeyRow = ApiKeyRow &
  Pick<typeof apiKeys.$inferSelect, "carried_over_at" | "carried_over_from">;

export interface ApiKeyRecord {
  id: string;
  site_id: string;
  name: string;
  kind: KeyKind;
  key_prefix: string;
  scopes: Scope[];
  allowed_origins: string[];
  created_by: string | null;
  /** The byline of the creator (authorship context); null on keys created before it was recorded. */
  author_name: string | null;
  created_at: string;
}

export function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    site_id: row.site_id,
    name: row.name,
    kind: row.kind,
    key_prefix: row.key_prefix,
    scopes: JSON.parse(row.scopes_json) as Scope[],
    allowed_origins: JSON.parse(row.allowed_origins_json) as string[],
    created_by: row.created_by,
    author_name: row.author_name,
    created_at: row.created_at,
  };
}

export async function insertApiKey(db: D1Database, key: ApiKeyRecord & { key_hash: string }): Promise<void> {
  await drizzle(db)
    .insert(apiKeys)
    .values({
      id: key.id,
      site_id: key.site_id,
      name: key.name,
      kind: key.kind,
      key_hash: key.key_hash,
      key_prefix: key.key_prefix,
      scopes_json: JSON.stringify(key.scopes),
      allowed_origins_json: JSON.stringify(key.allowed_origins),
      created_by: key.created_by,
      author_name: key.author_name,
      created_at: key.created_at,
    })
    .run();
}

/** The site's unrevoked keys, carried-over ones included (with their `carried_over`); with `id`, that one alone. */
export async function listActiveApiKeys(db: D1Database, siteId: string, id?: string) {
  const results: ListedApiKeyRow[] = await drizzle(db)
    .select({
      id: apiKeys.id,
      site_id: apiKeys.site_id,
      name: apiKeys.name,
      kind: apiKeys.kind,
      key_prefix: apiKeys.key_prefix,
      scopes_json: apiKeys.scopes_json,
      allowed_origins_json: apiKeys.allowed_origins_json,
      created_by: apiKeys.created_by,
      author_name: apiKeys.author_name,
      created_at: apiKeys.created_at,
      carried_over_at: apiKeys.carried_over_at,
      carried_over_from: apiKeys.carried_over_from,
    })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.site_id, siteId),
        isNull(apiKeys.revoked_at),
        id === undefined ? undefined : eq(apiKeys.id, id),
      ),
    )
    .orderBy(desc(apiKeys.created_at), desc(apiKeys.id))
    .all();
  return results.map((row) => ({ ...toRecord(row), carried_over: carriedOver(row) }));
}

/** Revokes an active key of the site; false when there is none (unknown, other site's, or already revoked). */
export async function revokeApiKey(
  db: D1Database,
  siteId: string,
  keyId: string,
  by: string,
  now: string,
): Promise<boolean> {
  const result = await drizzle(db)
    .update(apiKeys)
    .set({ revoked_at: now, revoked_by: by })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.site_id, siteId), isNull(apiKeys.revoked_at)))
    .run();
  return result.meta.changes > 0;
}

type SiteRow = typeof sites.$inferSelect;

/** Join of the key with its site's status and the site fields its public URLs are built from. */
export type KeyLookupRow = ApiKeyRow & {
  site_status: SiteRow["status"];
  site_slug: SiteRow["slug"];
  site_primary_domain: SiteRow["primary_domain"];
  site_default_language: SiteRow["default_language"];
  site_content_version: SiteRow["content_version"];
  site_org_id: SiteRow["org_id"];
  site_name: SiteRow["name"];
  site_updated_at: SiteRow["updated_at"];
  /** The site's persona of the key's authorship context (user and byline), when it was made already. */
  persona_slug: string | null;
  /**
   * The site's post types as JSON `[[slug, is_public, enabled], …]`: a post write checks its type and
   * whether it is public without a query.
   */
  post_types_json: string;
  /**
   * 1 when the key may not act (issue 19): a transfer carried it over, or its organization is no longer the
   * site's owner as content knows it (the projection or the applied transfer, whichever is newer), which
   * covers the time before the site-transferred consumer has run.
   */
  suspended: number;
};

/**
 * The active key with this hash and its site (status, URL fields, content version) and whether it is
 * suspended; revoked keys are never returned. In the same query, what a post write needs of the site: its
 * projection, the key's author persona and the post types (one storage hop for all of it).
 */
export async function findActiveKeyByHash(db: D1Database, keyHash: string): Promise<KeyLookupRow | null> {
  return db
    .prepare(
      `SELECT k.id, k.site_id, k.name, k.kind, k.key_prefix, k.scopes_json, k.allowed_origins_json, k.created_by,
              k.author_name, k.created_at, s.status AS site_status, s.slug AS site_slug,
              s.primary_domain AS site_primary_domain, s.default_language AS site_default_language,
              s.content_version AS site_content_version, s.org_id AS site_org_id, s.name AS site_name,
              s.updated_at AS site_updated_at, p.slug AS persona_slug,
              (SELECT json_group_array(json_array(t.slug, t.is_public, t.disabled_at IS NULL)) FROM post_types t
                WHERE t.site_id = k.site_id) AS post_types_json,
              (k.carried_over_at IS NOT NULL OR k.org_id IS NOT o.org_id) AS suspended
       FROM api_keys k JOIN sites s ON s.id = k.site_id LEFT JOIN site_owner o ON o.site_id = k.site_id
       LEFT JOIN author_personas p
         ON p.site_id = k.site_id AND p.user_id = k.created_by AND p.display_name = k.author_name
       WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    )
    .bind(keyHash)
    .first<KeyLookupRow>();
}
