/** Organizations, through drizzle's query builder. */

import { asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { orgMemberships, orgs } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
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

/**
 * The slug a derived `base` takes in one statement: `base` itself when free, else `base-N` with N one more
 * than the highest numeric suffix already taken (at least 2), the base cut so that `base-N` stays one DNS
 * label (63). D1 runs a statement alone, so the read of the taken suffixes and the insert are one atomic
 * step: concurrent creations of one name each get their own slug, with no check-then-insert race. Only
 * suffixes of up to 9 digits count (a taken `acme-99999999999999999999` cannot push N past an integer).
 * `?3` is the base, `?6` a GLOB prefix of it (slugs hold no GLOB metacharacter) so the index is used.
 */
const INSERT_DERIVED_SLUG = `INSERT INTO orgs (id, name, slug, owner_user_id, created_at)
SELECT ?1, ?2,
  CASE WHEN NOT EXISTS (SELECT 1 FROM orgs WHERE slug = ?3) THEN ?3
       ELSE substr(?3, 1, 62 - length(next.n)) || '-' || next.n END,
  ?4, ?5
FROM (
  SELECT CAST(MAX(2, 1 + COALESCE(MAX(CAST(substr(slug, length(rtrim(slug, '0123456789')) + 1) AS INTEGER)), 1)) AS TEXT) AS n
  FROM orgs
  WHERE slug GLOB ?6
    AND length(slug) - length(rtrim(slug, '0123456789')) BETWEEN 1 AND 9
    AND rtrim(slug, '0123456789') = substr(?3, 1, 62 - (length(slug) - length(rtrim(slug, '0123456789')))) || '-'
) AS next
RETURNING slug`;

/**
 * Creates an organization whose slug is derived from its name (`base`, already a valid slug): `base`, or
 * `base-2`, `base-3`… when taken (INSERT_DERIVED_SLUG), with its owner's membership in the same batch.
 * Null only if the chosen slug still met the unique index (a taken slug past the suffixes counted).
 */
export async function createOrgWithDerivedSlug(db: D1Database, userId: string, name: string, base: string) {
  const id = newId();
  const now = nowIso();
  const prefix = `${base.slice(0, 48)}*`;
  try {
    const [inserted] = await batch(db, [
      query<Row<typeof orgs, "slug">>(db, INSERT_DERIVED_SLUG, id, name, base, userId, now, prefix),
      drizzle(db)
        .insert(orgMemberships)
        .values({ org_id: id, user_id: userId, role: "org_owner", created_at: now }),
    ]);
    const slug = inserted.rows[0]?.slug;
    if (slug === undefined) return null;
    return { id, name, slug, role: "org_owner", created_at: now };
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
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
