/** Organizations, through drizzle's query builder. */

import { asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { orgMemberships, orgs } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";

/** An organization joined with the caller's membership role. */
export type OrgRow = Pick<typeof orgs.$inferSelect, "id" | "name" | "slug" | "created_at"> &
  Pick<typeof orgMemberships.$inferSelect, "role">;

export async function createOrg(db: D1Database, userId: string, name: string, slug: string) {
  const id = newId();
  const now = nowIso();
  const d = drizzle(db);
  try {
    await d.batch([
      d.insert(orgs).values({ id, name, slug, owner_user_id: userId, created_at: now }),
      d.insert(orgMemberships).values({ org_id: id, user_id: userId, role: "org_owner", created_at: now }),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return { id, name, slug, role: "org_owner", created_at: now };
}

export async function listMyOrgs(db: D1Database, userId: string): Promise<{ results: OrgRow[] }> {
  const results = await drizzle(db)
    .select({
      id: orgs.id,
      name: orgs.name,
      slug: orgs.slug,
      role: orgMemberships.role,
      created_at: orgs.created_at,
    })
    .from(orgMemberships)
    .innerJoin(orgs, eq(orgs.id, orgMemberships.org_id))
    .where(eq(orgMemberships.user_id, userId))
    .orderBy(asc(orgs.created_at), asc(orgs.id))
    .limit(500)
    .all();
  return { results };
}

export async function findOrgBySlug(db: D1Database, slug: string) {
  const row = await drizzle(db)
    .select({ id: orgs.id, name: orgs.name })
    .from(orgs)
    .where(eq(orgs.slug, slug))
    .get();
  return row ?? null;
}
