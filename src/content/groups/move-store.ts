/**
 * The queries of a site's move between groups (docs/decisions/site-groups.md, "Moving a site", issue 38):
 * every table that holds a site's rows (`SITE_TABLES`, in copy order: a parent before its children), a
 * chunk of a site's rows read from one group as JSON and written to another with `json_each` (one bound
 * parameter, whatever the chunk's size), deletes in chunks, and the site's fence (`site_fences`, migration
 * 0023). The mover's own writes open the fence inside their batch: its first statement sets `purging`, its
 * last clears it, so no other writer ever sees it open (a D1 batch is one transaction). Every function takes
 * the database handle of the group it works on.
 */
import { eq, getTableColumns, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../../schema/content";
import type { Computed } from "../../lib/rows";
import { all, batch, query } from "../../lib/sql";
import { idempotencyRecordOf } from "./fence-store";

/** A table of a site's rows: its name, its drizzle table (the columns copied), and how its rows are found (`?1` = site id). */
export interface SiteTable {
  name: string;
  table: SQLiteTable;
  where: string;
}

const bySite = (name: string, table: SQLiteTable): SiteTable => ({ name, table, where: "site_id = ?1" });

/**
 * Every table of a site's rows, parents first (copy order; deletes run in reverse). The FTS5 tables
 * (`posts_fts`, `posts_search`) are not copied: the triggers of `posts` fill them in the target, and empty
 * them in the source when its posts are deleted. `post_media_refs` and `post_revisions` are filled by those
 * triggers too and copied after `posts` with `INSERT OR IGNORE` (same keys, same values). `analytics_salts`
 * belongs to no site (one salt per group and day: today's unique visitors of a moved site may count a visitor
 * seen before and after the move twice).
 */
export const SITE_TABLES: readonly SiteTable[] = [
  { name: "sites", table: schema.sites, where: "id = ?1" },
  bySite("site_transfers", schema.siteTransfers),
  bySite("forms_app_state", schema.formsAppState),
  bySite("api_keys", schema.apiKeys),
  bySite("post_types", schema.postTypes),
  bySite("author_personas", schema.authorPersonas),
  bySite("taxonomy_terms", schema.taxonomyTerms),
  bySite("media", schema.media),
  {
    name: "media_tags",
    table: schema.mediaTags,
    where: "media_id IN (SELECT id FROM media WHERE site_id = ?1)",
  },
  bySite("posts", schema.posts),
  bySite("post_media_refs", schema.postMediaRefs),
  bySite("post_revisions", schema.postRevisions),
  bySite("preview_links", schema.previewLinks),
  bySite("forms", schema.forms),
  {
    name: "form_token_uses",
    table: schema.formTokenUses,
    where: "form_id IN (SELECT id FROM forms WHERE site_id = ?1)",
  },
  bySite("leads", schema.leads),
  bySite("webhooks", schema.webhooks),
  bySite("webhook_deliveries", schema.webhookDeliveries),
  {
    // Every record names its site (migration 0024), an agent's (`agent:<grant>`) too; one written before it
    // through its key: an API key's, or a signed-in person's (`person:<user>:<site>`).
    name: "idempotency_records",
    table: schema.idempotencyRecords,
    where: idempotencyRecordOf("?1"),
  },
  bySite("post_effects", schema.postEffects),
  bySite("outbound_effects", schema.outboundEffects),
  bySite("import_lines", schema.importLines),
  bySite("audit_events", schema.auditEvents),
  bySite("analytics_visitors", schema.analyticsVisitors),
  bySite("analytics_daily", schema.analyticsDaily),
  bySite("analytics_paths_daily", schema.analyticsPathsDaily),
  bySite("analytics_referrers_daily", schema.analyticsReferrersDaily),
  bySite("ended_member_grants", schema.endedMemberGrants),
];

/** Tables without a key of their own: a copied chunk is deduplicated column by column (a resumed chunk). */
const KEYLESS = new Set(["ended_member_grants"]);

function columnsOf(t: SiteTable): string[] {
  return Object.values(getTableColumns(t.table)).map((c) => c.name);
}

/** One read chunk: each row's rowid (the copy's cursor) and the row as a JSON object. */
export type ChunkRow = Computed<{ move_rowid: number; row_json: string }>;

/** Up to `limit` of the site's rows of `t` after rowid `after`, in rowid order, each as JSON. */
export function readChunk(
  db: D1Database,
  t: SiteTable,
  siteId: string,
  after: number,
  limit: number,
): Promise<ChunkRow[]> {
  const object = columnsOf(t)
    .map((c) => `'${c}', ${c}`)
    .join(", ");
  return all(
    query<ChunkRow>(
      db,
      `SELECT rowid AS move_rowid, json_object(${object}) AS row_json FROM ${t.name}
        WHERE (${t.where}) AND rowid > ?2 ORDER BY rowid LIMIT ?3`,
      siteId,
      after,
      limit,
    ),
  );
}

const openFence = (db: D1Database, siteId: string) =>
  query(db, "UPDATE site_fences SET purging = 1 WHERE site_id = ?1", siteId);
const closeFence = (db: D1Database, siteId: string) =>
  query(db, "UPDATE site_fences SET purging = 0 WHERE site_id = ?1", siteId);

/**
 * Writes a chunk (a JSON array of rows as `readChunk` read them) into `t` of `db`, inside the site's fence
 * opened for this batch only. A row already there is kept (`INSERT OR IGNORE`: a chunk written again after a
 * resumed move changes nothing). Returns how many rows were new.
 */
export async function writeChunk(
  db: D1Database,
  t: SiteTable,
  siteId: string,
  rowsJson: string,
): Promise<number> {
  const columns = columnsOf(t);
  const values = columns.map((c) => `json_extract(j.value, '$.${c}')`).join(", ");
  const keyless = KEYLESS.has(t.name)
    ? ` WHERE NOT EXISTS (SELECT 1 FROM ${t.name} x WHERE ${columns
        .map((c) => `x.${c} IS json_extract(j.value, '$.${c}')`)
        .join(" AND ")})`
    : "";
  const [, inserted] = await batch(db, [
    openFence(db, siteId),
    query<Computed<{ one: number }>>(
      db,
      `INSERT OR IGNORE INTO ${t.name} (${columns.join(", ")}) SELECT ${values} FROM json_each(?1) j${keyless}
        RETURNING 1 AS one`,
      rowsJson,
    ),
    closeFence(db, siteId),
  ]);
  // The rows the statement returned: D1's `changes` also counts what the table's triggers wrote.
  return inserted.rows.length;
}

/** Deletes up to `limit` of the site's rows of `t` (and what its triggers delete with them), inside the open fence. */
export async function deleteChunk(
  db: D1Database,
  t: SiteTable,
  siteId: string,
  limit: number,
): Promise<number> {
  const [, deleted] = await batch(db, [
    openFence(db, siteId),
    query<Computed<{ one: number }>>(
      db,
      `DELETE FROM ${t.name} WHERE rowid IN (SELECT rowid FROM ${t.name} WHERE ${t.where} LIMIT ?2) RETURNING 1 AS one`,
      siteId,
      limit,
    ),
    closeFence(db, siteId),
  ]);
  return deleted.rows.length;
}

export type FenceState = (typeof schema.siteFences.$inferSelect)["state"];
export type FenceRow = typeof schema.siteFences.$inferSelect;

/** Places (or changes) the site's fence in `db`: from then on the group refuses the site's writes. */
export async function setFence(
  db: D1Database,
  siteId: string,
  state: FenceState,
  otherGroup: string,
  now: string,
): Promise<void> {
  await drizzle(db)
    .insert(schema.siteFences)
    .values({ site_id: siteId, state, other_group: otherGroup, purging: 0, created_at: now, updated_at: now })
    .onConflictDoUpdate({
      target: schema.siteFences.site_id,
      set: { state, other_group: otherGroup, purging: 0, updated_at: now },
    });
}

/** Removes the site's fence from `db` (the group takes the site's writes again). */
export async function dropFence(db: D1Database, siteId: string): Promise<void> {
  await drizzle(db).delete(schema.siteFences).where(eq(schema.siteFences.site_id, siteId));
}

/**
 * Moves the site's content version once more in `db` (after the switch): every edge-cache entry and cached
 * key context of the site names an older version, so no reader that knows the new one sees them.
 */
export async function bumpContentVersion(db: D1Database, siteId: string): Promise<void> {
  await drizzle(db)
    .update(schema.sites)
    .set({ content_version: sql`${schema.sites.content_version} + 1` })
    .where(eq(schema.sites.id, siteId));
}
