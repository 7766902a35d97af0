/**
 * Every query of the themes tables (`themes`, `theme_snapshots`). Any failure of this storage is
 * `THEMES_UNAVAILABLE` (503) for the caller, except a taken slug, which the unique index
 * `themes_owner_slug` decides (409 `THEME_SLUG_TAKEN`, safe under concurrent writes). Writes that
 * touch a site's settings are one batch with the compare-and-swap on the stored document. Queries go
 * through drizzle's query builder, except the snapshot's `INSERT … SELECT` (its sequence number and its
 * guard on the stored document are computed in the statement).
 */
import { and, desc, eq, exists, max, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sites, themeSnapshots, themes } from "../../../schema/sites";
import { batch, driverMessage } from "../../lib/sql";
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import { siteExists, visibleSite } from "../site/store";

export type ThemeRow = typeof themes.$inferSelect;
export type ThemeScope = ThemeRow["scope"];

/** Undo snapshots kept per site (spec: Limits). */
export const MAX_SNAPSHOTS = 10;

const VISIBLE_SITE = "status NOT IN ('deleted', 'archived')";

/** Runs a themes query; a storage failure becomes THEMES_UNAVAILABLE (logged), a slug clash 409. */
export async function themesStorage<T>(services: Services, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // The database's own message: drizzle wraps the error of a statement it ran ("Failed query: …").
    const message = driverMessage(err);
    // An expression index reports itself by name: "UNIQUE constraint failed: index 'themes_owner_slug'".
    if (message.includes("UNIQUE constraint failed") && message.includes("themes_owner_slug")) {
      fail("THEME_SLUG_TAKEN", "This slug is already used by another theme of the same owner.");
    }
    services.log.error("themes_storage_failed", { error: message.slice(0, 300) });
    fail("THEMES_UNAVAILABLE", "Themes are unavailable right now; retry later.");
  }
}

/** `scope = 'platform' OR (scope = 'org' AND org_id = ?)`. */
function ownedOrPlatform(orgId: string | null) {
  return or(eq(themes.scope, "platform"), and(eq(themes.scope, "org"), sql`${themes.org_id} = ${orgId}`));
}

/** Platform themes, and the organization's own when `orgId` is given, platform first, then by name. */
export async function listThemes(db: D1Database, orgId: string | null): Promise<ThemeRow[]> {
  return drizzle(db)
    .select()
    .from(themes)
    .where(ownedOrPlatform(orgId))
    .orderBy(desc(themes.scope), themes.name, themes.id)
    .all();
}

/** A theme a site of `orgId` may apply: a platform theme, or an org theme of that organization. */
export async function findApplicableTheme(
  db: D1Database,
  id: string,
  orgId: string,
): Promise<ThemeRow | null> {
  return (
    (await drizzle(db)
      .select()
      .from(themes)
      .where(and(eq(themes.id, id), ownedOrPlatform(orgId)))
      .get()) ?? null
  );
}

export async function insertTheme(db: D1Database, row: ThemeRow): Promise<void> {
  await drizzle(db).insert(themes).values(row).run();
}

/** Replaces a platform theme's fields; null when `id` is no platform theme. */
export async function replacePlatformTheme(
  db: D1Database,
  row: Omit<ThemeRow, "scope" | "org_id" | "created_at">,
): Promise<ThemeRow | null> {
  const { id, slug, name, version, description, preview_url, package_json, updated_at } = row;
  return (
    (await drizzle(db)
      .update(themes)
      .set({ slug, name, version, description, preview_url, package_json, updated_at })
      .where(and(eq(themes.id, id), eq(themes.scope, "platform")))
      .returning()
      .get()) ?? null
  );
}

/** Deletes a theme of exactly this scope (and organization, for org themes); false when none matched. */
export async function deleteTheme(
  db: D1Database,
  id: string,
  owner: { scope: "platform" } | { scope: "org"; orgId: string },
): Promise<boolean> {
  const result = await drizzle(db)
    .delete(themes)
    .where(
      owner.scope === "platform"
        ? and(eq(themes.id, id), eq(themes.scope, "platform"))
        : and(eq(themes.id, id), eq(themes.scope, "org"), eq(themes.org_id, owner.orgId)),
    )
    .run();
  return result.meta.changes === 1;
}

export type SnapshotRow = typeof themeSnapshots.$inferSelect;

export async function latestSnapshot(db: D1Database, siteId: string): Promise<SnapshotRow | null> {
  return (
    (await drizzle(db)
      .select()
      .from(themeSnapshots)
      .where(eq(themeSnapshots.site_id, siteId))
      .orderBy(desc(themeSnapshots.seq))
      .limit(1)
      .get()) ?? null
  );
}

export async function hasSnapshot(db: D1Database, siteId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ x: sql`1` })
    .from(themeSnapshots)
    .where(eq(themeSnapshots.site_id, siteId))
    .limit(1)
    .get();
  return row !== undefined;
}

/**
 * One batch: the snapshot of the look before the apply, the settings compare-and-swap, and the drop of
 * snapshots beyond the newest MAX_SNAPSHOTS. The snapshot is written only where the swap is (both test
 * the same stored document, in one transaction). False when the document changed meanwhile.
 */
export async function storeAppliedLook(
  db: D1Database,
  input: {
    siteId: string;
    expected: string;
    next: string;
    snapshot: Omit<SnapshotRow, "site_id" | "seq">;
    at: string;
  },
): Promise<boolean> {
  const { siteId, expected, next, snapshot, at } = input;
  const d = drizzle(db);
  const [, swap] = await batch(db, [
    db
      .prepare(
        `INSERT INTO theme_snapshots (id, site_id, seq, theme_id, look_json, created_at)
         SELECT ?, ?, COALESCE((SELECT MAX(seq) FROM theme_snapshots WHERE site_id = ?), 0) + 1, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM sites WHERE id = ? AND settings = ? AND ${VISIBLE_SITE})`,
      )
      .bind(
        snapshot.id,
        siteId,
        siteId,
        snapshot.theme_id,
        snapshot.look_json,
        snapshot.created_at,
        siteId,
        expected,
      ),
    d
      .update(sites)
      .set({ settings: next, updated_at: at })
      .where(and(eq(sites.id, siteId), eq(sites.settings, expected), visibleSite())),
    d.delete(themeSnapshots).where(
      and(
        eq(themeSnapshots.site_id, siteId),
        sql`${themeSnapshots.seq} <= (${d
          .select({ seq: max(themeSnapshots.seq) })
          .from(themeSnapshots)
          .where(eq(themeSnapshots.site_id, siteId))}) - ${MAX_SNAPSHOTS}`,
      ),
    ),
  ]);
  return (swap?.changes ?? 0) === 1;
}

/**
 * One batch: the restored document stored if the stored one is still `expected` and the snapshot still
 * exists, then the snapshot deleted only where that write happened. False when either changed meanwhile.
 */
export async function storeUndoneLook(
  db: D1Database,
  input: { siteId: string; snapshotId: string; expected: string; next: string; at: string },
): Promise<boolean> {
  const { siteId, snapshotId, expected, next, at } = input;
  const d = drizzle(db);
  const snapshotHere = and(eq(themeSnapshots.id, snapshotId), eq(themeSnapshots.site_id, siteId));
  const [swap] = await drizzle(db).batch([
    d
      .update(sites)
      .set({ settings: next, updated_at: at })
      .where(
        and(
          eq(sites.id, siteId),
          eq(sites.settings, expected),
          visibleSite(),
          exists(d.select({ one: sql`1` }).from(themeSnapshots).where(snapshotHere)),
        ),
      ),
    d
      .delete(themeSnapshots)
      .where(
        and(
          snapshotHere,
          siteExists(db, and(eq(sites.id, siteId), eq(sites.settings, next), eq(sites.updated_at, at))),
        ),
      ),
  ]);
  return swap.meta.changes === 1;
}
