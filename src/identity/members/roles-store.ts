/** Role definitions: the presets (org_id NULL) and each organization's custom roles. */
import { and, asc, eq, isNull, or } from "drizzle-orm";
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

/** The slugs of every role of `scope` an organization can use: the presets and its own custom roles. */
export async function roleSlugsOfScope(
  db: D1Database,
  orgId: string,
  scope: "org" | "site",
): Promise<string[]> {
  const rows = await drizzle(db)
    .select({ slug: roles.slug })
    .from(roles)
    .where(and(eq(roles.scope, scope), or(isNull(roles.org_id), eq(roles.org_id, orgId))))
    .orderBy(asc(roles.slug))
    .all();
  return rows.map((r) => r.slug);
}
