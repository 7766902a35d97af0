/** Role definitions: the presets (org_id NULL) and each organization's custom roles. */
import { and, eq, isNull, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { roles } from "../../../schema/identity";

export type RoleRow = Pick<typeof roles.$inferSelect, "scope" | "slug" | "is_system" | "permissions">;

/** Roles of either scope an organization can use under that slug. */
export async function rolesBySlug(db: D1Database, orgId: string, slug: string): Promise<RoleRow[]> {
  return drizzle(db)
    .select({
      scope: roles.scope,
      slug: roles.slug,
      is_system: roles.is_system,
      permissions: roles.permissions,
    })
    .from(roles)
    .where(and(eq(roles.slug, slug), or(isNull(roles.org_id), eq(roles.org_id, orgId))))
    .all();
}
