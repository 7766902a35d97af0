/** Role definitions: the presets (org_id NULL) and each organization's custom roles. */

export interface RoleRow {
  scope: "org" | "site";
  slug: string;
  is_system: number;
  permissions: string;
}

/** Roles of either scope an organization can use under that slug. */
export async function rolesBySlug(db: D1Database, orgId: string, slug: string): Promise<RoleRow[]> {
  const { results } = await db
    .prepare(
      `SELECT scope, slug, is_system, permissions FROM roles
       WHERE slug = ? AND (org_id IS NULL OR org_id = ?)`,
    )
    .bind(slug, orgId)
    .all<RoleRow>();
  return results;
}
