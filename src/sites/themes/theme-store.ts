/**
 * Every query of the themes tables (`themes`, `theme_snapshots`). Any failure of this storage is
 * `THEMES_UNAVAILABLE` (503) for the caller, except a taken slug, which the unique index
 * `themes_owner_slug` decides (409 `THEME_SLUG_TAKEN`, safe under concurrent writes). Writes that
 * touch a site's settings are one batch with the compare-and-swap on the stored document.
 */
import type { themes } from "../../../schema/sites";
import { batch } from "../../lib/sql";
import type { Services } from "../core/app-env";
import { fail } from "../errors";

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
    const message = err instanceof Error ? err.message : String(err);
    // An expression index reports itself by name: "UNIQUE constraint failed: index 'themes_owner_slug'".
    if (message.includes("UNIQUE constraint failed") && message.includes("themes_owner_slug")) {
      fail("THEME_SLUG_TAKEN", "This slug is already used by another theme of the same owner.");
    }
    services.log.error("themes_storage_failed", { error: message.slice(0, 300) });
    fail("THEMES_UNAVAILABLE", "Themes are unavailable right now; retry later.");
  }
}

const COLUMNS =
  "id, scope, org_id, slug, name, version, description, preview_url, package_json, created_at, updated_at";

/** Platform themes, and the organization's own when `orgId` is given, platform first, then by name. */
export async function listThemes(db: D1Database, orgId: string | null): Promise<ThemeRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM themes WHERE scope = 'platform' OR (scope = 'org' AND org_id = ?)
       ORDER BY scope DESC, name, id`,
    )
    .bind(orgId)
    .all<ThemeRow>();
  return results;
}

/** A theme a site of `orgId` may apply: a platform theme, or an org theme of that organization. */
export async function findApplicableTheme(
  db: D1Database,
  id: string,
  orgId: string,
): Promise<ThemeRow | null> {
  return db
    .prepare(
      `SELECT ${COLUMNS} FROM themes WHERE id = ? AND (scope = 'platform' OR (scope = 'org' AND org_id = ?))`,
    )
    .bind(id, orgId)
    .first<ThemeRow>();
}

export async function insertTheme(db: D1Database, row: ThemeRow): Promise<void> {
  await db
    .prepare(`INSERT INTO themes (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      row.id,
      row.scope,
      row.org_id,
      row.slug,
      row.name,
      row.version,
      row.description,
      row.preview_url,
      row.package_json,
      row.created_at,
      row.updated_at,
    )
    .run();
}

/** Replaces a platform theme's fields; null when `id` is no platform theme. */
export async function replacePlatformTheme(
  db: D1Database,
  row: Omit<ThemeRow, "scope" | "org_id" | "created_at">,
): Promise<ThemeRow | null> {
  return db
    .prepare(
      `UPDATE themes SET slug = ?, name = ?, version = ?, description = ?, preview_url = ?, package_json = ?,
         updated_at = ? WHERE id = ? AND scope = 'platform' RETURNING ${COLUMNS}`,
    )
    .bind(
      row.slug,
      row.name,
      row.version,
      row.description,
      row.preview_url,
      row.package_json,
      row.updated_at,
      row.id,
    )
    .first<ThemeRow>();
}

/** Deletes a theme of exactly this scope (and organization, for org themes); false when none matched. */
export async function deleteTheme(
  db: D1Database,
  id: string,
  owner: { scope: "platform" } | { scope: "org"; orgId: string },
): Promise<boolean> {
  const result =
    owner.scope === "platform"
      ? await db.prepare("DELETE FROM themes WHERE id = ? AND scope = 'platform'").bind(id).run()
      : await db
          .prepare("DELETE FROM themes WHERE id = ? AND scope = 'org' AND org_id = ?")
          .bind(id, owner.orgId)
          .run();
  return result.meta.changes === 1;
}

export interface SnapshotRow {
  id: string;
  site_id: string;
  seq: number;
  theme_id: string;
  look_json: string;
  created_at: string;
}

export async function latestSnapshot(db: D1Database, siteId: string): Promise<SnapshotRow | null> {
  return db
    .prepare("SELECT * FROM theme_snapshots WHERE site_id = ? ORDER BY seq DESC LIMIT 1")
    .bind(siteId)
    .first<SnapshotRow>();
}

export async function hasSnapshot(db: D1Database, siteId: string): Promise<boolean> {
  return (
    (await db
      .prepare("SELECT 1 AS x FROM theme_snapshots WHERE site_id = ? LIMIT 1")
      .bind(siteId)
      .first()) !== null
  );
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
    db
      .prepare(
        `UPDATE sites SET settings = ?, updated_at = ? WHERE id = ? AND settings = ? AND ${VISIBLE_SITE}`,
      )
      .bind(next, at, siteId, expected),
    db
      .prepare(
        `DELETE FROM theme_snapshots WHERE site_id = ?
           AND seq <= (SELECT MAX(seq) FROM theme_snapshots WHERE site_id = ?) - ?`,
      )
      .bind(siteId, siteId, MAX_SNAPSHOTS),
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
  const [swap] = await batch(db, [
    db
      .prepare(
        `UPDATE sites SET settings = ?, updated_at = ? WHERE id = ? AND settings = ? AND ${VISIBLE_SITE}
           AND EXISTS (SELECT 1 FROM theme_snapshots WHERE id = ? AND site_id = ?)`,
      )
      .bind(next, at, siteId, expected, snapshotId, siteId),
    db
      .prepare(
        `DELETE FROM theme_snapshots WHERE id = ? AND site_id = ?
           AND EXISTS (SELECT 1 FROM sites WHERE id = ? AND settings = ? AND updated_at = ?)`,
      )
      .bind(snapshotId, siteId, siteId, next, at),
  ]);
  return (swap?.changes ?? 0) === 1;
}
