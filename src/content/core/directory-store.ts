/**
 * The content directory's queries (schema/content-directory.ts, docs/decisions/site-groups.md): a site's
 * group, its placement, and an API key's site. Every function takes the directory's handle; only
 * core/groups.ts calls them.
 */
import { eq, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { keySites, siteGroups } from "../../../schema/content-directory";
import { inJsonEach } from "../../lib/sql";

export type SiteGroupRow = typeof siteGroups.$inferSelect;

export async function siteGroupRow(db: D1Database, siteId: string): Promise<SiteGroupRow | null> {
  const rows = await drizzle(db).select().from(siteGroups).where(eq(siteGroups.site_id, siteId)).limit(1);
  return rows[0] ?? null;
}

/** The rows of the sites that have one (one statement, however many ids). */
export async function siteGroupRows(db: D1Database, siteIds: readonly string[]): Promise<SiteGroupRow[]> {
  if (siteIds.length === 0) return [];
  return drizzle(db).select().from(siteGroups).where(inJsonEach(siteGroups.site_id, siteIds));
}

/** The newest site that carries `slug` (a renamed site's old slug may linger on a row not yet synced). */
export async function siteIdOfSlug(db: D1Database, slug: string): Promise<string | null> {
  const rows = await drizzle(db)
    .select({ site_id: siteGroups.site_id })
    .from(siteGroups)
    .where(eq(siteGroups.slug, slug))
    .orderBy(sql`${siteGroups.updated_at} DESC`)
    .limit(1);
  return rows[0]?.site_id ?? null;
}

/** How many sites each group holds (groups without a site are absent). */
export async function groupSiteCounts(db: D1Database): Promise<Map<string, number>> {
  const rows = await drizzle(db)
    .select({ group_name: siteGroups.group_name, n: sql<number>`count(*)` })
    .from(siteGroups)
    .groupBy(siteGroups.group_name);
  return new Map(rows.map((r) => [r.group_name, Number(r.n)]));
}

/**
 * The site's row, placed in `group` when it has none; an existing row keeps its group (a placement never
 * moves a site) and takes the new slug.
 */
export async function placeSiteRow(
  db: D1Database,
  site: { id: string; slug: string },
  group: string,
  now: string,
): Promise<SiteGroupRow> {
  const rows = await drizzle(db)
    .insert(siteGroups)
    .values({ site_id: site.id, slug: site.slug, group_name: group, placed_at: now, updated_at: now })
    .onConflictDoUpdate({ target: siteGroups.site_id, set: { slug: site.slug, updated_at: now } })
    .returning();
  const row = rows[0];
  if (!row) throw new Error(`site ${site.id} was not placed`);
  return row;
}

export async function keySiteOf(db: D1Database, keyHash: string): Promise<string | null> {
  const rows = await drizzle(db)
    .select({ site_id: keySites.site_id })
    .from(keySites)
    .where(eq(keySites.key_hash, keyHash))
    .limit(1);
  return rows[0]?.site_id ?? null;
}

/** Records the key's site (idempotent: a key's site never changes). */
export async function recordKeySiteRow(db: D1Database, keyHash: string, siteId: string): Promise<void> {
  await drizzle(db).insert(keySites).values({ key_hash: keyHash, site_id: siteId }).onConflictDoNothing();
}

/**
 * One compare-and-set of a site's routing row: `set` is applied only while the row is at `version` and its
 * move mark satisfies `mark`. True when it was applied (false: the row moved on).
 */
async function compareAndSetRoute(
  db: D1Database,
  siteId: string,
  version: number,
  mark: SQL,
  set: Partial<Pick<SiteGroupRow, "group_name" | "version" | "moving_to">>,
): Promise<boolean> {
  const rows = await drizzle(db)
    .update(siteGroups)
    .set(set)
    .where(sql`${siteGroups.site_id} = ${siteId} AND ${siteGroups.version} = ${version} AND ${mark}`)
    .returning({ site_id: siteGroups.site_id });
  return rows.length === 1;
}

/**
 * A site's move (src/content/groups/mover.ts): marks it moving to `to` while its routing version is still
 * `version` (the same mark again is a no-op that succeeds). False when the row moved on.
 */
export function markSiteMovingRow(
  db: D1Database,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  const mark = sql`(${siteGroups.moving_to} IS NULL OR ${siteGroups.moving_to} = ${to})`;
  return compareAndSetRoute(db, siteId, version, mark, { moving_to: to });
}

/** The move's switch: the site's group becomes `to`, its version moves by one, the mark is cleared. */
export function switchSiteGroupRow(
  db: D1Database,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  const mark = sql`${siteGroups.moving_to} = ${to}`;
  return compareAndSetRoute(db, siteId, version, mark, {
    group_name: to,
    version: version + 1,
    moving_to: null,
  });
}

/** A rolled-back move: the mark is cleared, the group and version unchanged. */
export function clearSiteMovingRow(
  db: D1Database,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  return compareAndSetRoute(db, siteId, version, sql`${siteGroups.moving_to} = ${to}`, { moving_to: null });
}
