/** API key rows. Only the keyed hash of a key is stored; lookups are by that hash. */
import { and, desc, eq, isNull, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sqliteView, text } from "drizzle-orm/sqlite-core";
import { apiKeys, authorPersonas, postTypes, sites } from "../../../schema/content";
import { carriedOver } from "../transfers/store";
import type { KeyKind } from "./key-hash";
import type { Scope } from "./scopes";

/** A key as read back: never its hash, nor the revocation (only active keys are read). */
export type ApiKeyRow = Omit<
  typeof apiKeys.$inferSelect,
  | "key_hash"
  | "revoked_at"
  | "revoked_by"
  | "org_id"
  | "carried_over_at"
  | "carried_over_from"
  | "widened_at"
  | "widened_by"
  | "widened_json"
>;

/**
 * A key as listed to its site's administrators: with what a transfer carried over (issue 19) and its last
 * widening (issue 35).
 */
export type ListedApiKeyRow = ApiKeyRow &
  Pick<
    typeof apiKeys.$inferSelect,
    "carried_over_at" | "carried_over_from" | "widened_at" | "widened_by" | "widened_json"
  >;

/** What a key's last widening added, as `widened_json` stores it. */
export interface KeyWidening {
  scopes: Scope[];
  allowed_origins: string[];
  server_reads: boolean;
}

/** A key's last widening as listed: when, by whom (a user id), what it added; null when never widened. */
export type LastWidened = { at: string; by: string | null; added: KeyWidening } | null;

/** A key as its administrators see it (the record, what a transfer carried over, its last widening). */
export type ListedApiKey = ApiKeyRecord & {
  carried_over: ReturnType<typeof carriedOver>;
  last_widened: LastWidened;
};

export interface ApiKeyRecord {
  id: string;
  site_id: string;
  name: string;
  kind: KeyKind;
  key_prefix: string;
  scopes: Scope[];
  allowed_origins: string[];
  /** A public key also serves reads without an Origin from a server (never a browser). */
  server_reads: boolean;
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
    server_reads: row.server_reads === 1,
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
      server_reads: key.server_reads ? 1 : 0,
      created_by: key.created_by,
      author_name: key.author_name,
      created_at: key.created_at,
    })
    .run();
}

/** What a key is: the columns its lookup and its listing both read. */
const keyColumns = {
  id: apiKeys.id,
  site_id: apiKeys.site_id,
  name: apiKeys.name,
  kind: apiKeys.kind,
  key_prefix: apiKeys.key_prefix,
  scopes_json: apiKeys.scopes_json,
  allowed_origins_json: apiKeys.allowed_origins_json,
  server_reads: apiKeys.server_reads,
  created_by: apiKeys.created_by,
  author_name: apiKeys.author_name,
  created_at: apiKeys.created_at,
};

/** The columns a key is listed with. */
const listedColumns = {
  ...keyColumns,
  carried_over_at: apiKeys.carried_over_at,
  carried_over_from: apiKeys.carried_over_from,
  widened_at: apiKeys.widened_at,
  widened_by: apiKeys.widened_by,
  widened_json: apiKeys.widened_json,
};

function listed(row: ListedApiKeyRow): ListedApiKey {
  const lastWidened: LastWidened =
    row.widened_at === null || row.widened_json === null
      ? null
      : { at: row.widened_at, by: row.widened_by, added: JSON.parse(row.widened_json) as KeyWidening };
  return { ...toRecord(row), carried_over: carriedOver(row), last_widened: lastWidened };
}

/** The site's unrevoked keys, carried-over ones included (with their `carried_over`); with `id`, that one alone. */
export async function listActiveApiKeys(
  db: D1Database,
  siteId: string,
  id?: string,
): Promise<ListedApiKey[]> {
  const results: ListedApiKeyRow[] = await drizzle(db)
    .select(listedColumns)
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
  return results.map(listed);
}

/**
 * Key `id` of the site while it may be edited: not revoked, not carried over by a transfer, stamped for the
 * site's current owner (a key `findActiveKeyByHash` calls suspended is not editable either).
 */
function editable(siteId: string, id: string): SQL | undefined {
  return and(
    eq(apiKeys.id, id),
    eq(apiKeys.site_id, siteId),
    isNull(apiKeys.revoked_at),
    isNull(apiKeys.carried_over_at),
    sql`${apiKeys.org_id} IS (SELECT org_id FROM site_owner WHERE site_id = ${siteId})`,
  );
}

/** The kind of key `id` of the site when it may be edited (`editable`); null otherwise. */
export async function findEditableApiKey(
  db: D1Database,
  siteId: string,
  id: string,
): Promise<{ kind: KeyKind } | null> {
  const row = await drizzle(db)
    .select({ kind: apiKeys.kind })
    .from(apiKeys)
    .where(editable(siteId, id))
    .get();
  return row ?? null;
}

/** What an edit changes; a field left out keeps its value. */
export interface ApiKeyUpdate {
  name?: string;
  scopes?: Scope[];
  allowed_origins?: string[];
  server_reads?: boolean;
}

/** The JSON array of `next`'s members that `current` (a JSON array column) lacks; `[]` when not edited. */
function addedTo(current: SQLWrapper, next: readonly string[] | undefined): SQL {
  if (next === undefined) return sql`'[]'`;
  return sql`(SELECT json_group_array(n.value) FROM json_each(${JSON.stringify(next)}) n
    WHERE n.value NOT IN (SELECT o.value FROM json_each(${current}) o))`;
}

/**
 * Edits key `id` of the site (while `editable`) in one statement, so concurrent edits each leave a whole
 * row (the last writer's), never a mix. The same statement compares the edit with the row it replaces: when
 * it adds a scope, an origin (an entry not in the list before, compared as text) or server reads, it
 * records that widening on the key (`widened_at`, `widened_by`, `widened_json`: what was added), as the
 * key's creation is recorded on it. Null when no such key.
 */
export async function updateApiKey(
  db: D1Database,
  siteId: string,
  id: string,
  update: ApiKeyUpdate,
  by: string,
  now: string,
): Promise<ListedApiKey | null> {
  const scopes = addedTo(apiKeys.scopes_json, update.scopes);
  const origins = addedTo(apiKeys.allowed_origins_json, update.allowed_origins);
  const serverReads = update.server_reads === true ? sql`(${apiKeys.server_reads} = 0)` : sql`0`;
  const widened = sql`(json_array_length(${scopes}) > 0 OR json_array_length(${origins}) > 0 OR ${serverReads})`;
  const row = await drizzle(db)
    .update(apiKeys)
    .set({
      ...(update.name !== undefined ? { name: update.name } : {}),
      ...(update.scopes !== undefined ? { scopes_json: JSON.stringify(update.scopes) } : {}),
      ...(update.allowed_origins !== undefined
        ? { allowed_origins_json: JSON.stringify(update.allowed_origins) }
        : {}),
      ...(update.server_reads !== undefined ? { server_reads: update.server_reads ? 1 : 0 } : {}),
      widened_at: sql`CASE WHEN ${widened} THEN ${now} ELSE ${apiKeys.widened_at} END`,
      widened_by: sql`CASE WHEN ${widened} THEN ${by} ELSE ${apiKeys.widened_by} END`,
      widened_json: sql`CASE WHEN ${widened}
        THEN json_object('scopes', json(${scopes}), 'allowed_origins', json(${origins}),
          'server_reads', CASE WHEN ${serverReads} THEN json('true') ELSE json('false') END)
        ELSE ${apiKeys.widened_json} END`,
    })
    .where(editable(siteId, id))
    .returning(listedColumns)
    .get();
  return row ? listed(row) : null;
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

/**
 * The `site_owner` view (migration 0008: the newest owner content knows of, the applied transfer or the
 * projection's), declared for the query builder with the columns the key lookup reads; the view exists in SQL.
 */
const siteOwner = sqliteView("site_owner", {
  site_id: text("site_id").notNull(),
  org_id: text("org_id"),
}).existing();

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
  return (await keyLookup(db, keyHash).get()) ?? null;
}

/**
 * The key lookup's statement (exported for its query-plan test). `site_owner` is an inner join: every site
 * has its one owner row, and a view that is itself a join cannot be flattened into the right side of a LEFT
 * JOIN, so SQLite would materialize the view, scanning every site, on each lookup.
 */
export function keyLookup(db: D1Database, keyHash: string) {
  return drizzle(db)
    .select({
      ...keyColumns,
      site_status: sites.status,
      site_slug: sites.slug,
      site_primary_domain: sites.primary_domain,
      site_default_language: sites.default_language,
      site_content_version: sites.content_version,
      site_org_id: sites.org_id,
      site_name: sites.name,
      site_updated_at: sites.updated_at,
      persona_slug: authorPersonas.slug,
      post_types_json: sql<string>`(SELECT json_group_array(json_array(${postTypes.slug}, ${postTypes.is_public},
        ${postTypes.disabled_at} IS NULL)) FROM ${postTypes} WHERE ${postTypes.site_id} = ${apiKeys.site_id})`,
      suspended: sql<number>`(${apiKeys.carried_over_at} IS NOT NULL OR ${apiKeys.org_id} IS NOT ${siteOwner.org_id})`,
    })
    .from(apiKeys)
    .innerJoin(sites, eq(sites.id, apiKeys.site_id))
    .innerJoin(siteOwner, eq(siteOwner.site_id, apiKeys.site_id))
    .leftJoin(
      authorPersonas,
      and(
        eq(authorPersonas.site_id, apiKeys.site_id),
        eq(authorPersonas.user_id, apiKeys.created_by),
        eq(authorPersonas.display_name, apiKeys.author_name),
      ),
    )
    .where(and(eq(apiKeys.key_hash, keyHash), isNull(apiKeys.revoked_at)));
}
