/** Organizations. */

import type { orgMemberships, orgs } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Row } from "../../lib/rows";
import { batch } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";

/** An organization joined with the caller's membership role. */
export type OrgRow = Pick<typeof orgs.$inferSelect, "id" | "name" | "slug" | "created_at"> &
  Pick<typeof orgMemberships.$inferSelect, "role">;

export async function createOrg(db: D1Database, userId: string, name: string, slug: string) {
  const id = newId();
  const now = nowIso();
  try {
    await batch(db, [
      db
        .prepare("INSERT INTO orgs (id, name, slug, owner_user_id, created_at) VALUES (?, ?, ?, ?, ?)")
        .bind(id, name, slug, userId, now),
      db
        .prepare(
          "INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'org_owner', ?)",
        )
        .bind(id, userId, now),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return { id, name, slug, role: "org_owner", created_at: now };
}

export function listMyOrgs(db: D1Database, userId: string) {
  return db
    .prepare(
      `SELECT o.id, o.name, o.slug, m.role, o.created_at FROM org_memberships m JOIN orgs o ON o.id = m.org_id
       WHERE m.user_id = ? ORDER BY o.created_at, o.id LIMIT 500`,
    )
    .bind(userId)
    .all<OrgRow>();
}

export function findOrgBySlug(db: D1Database, slug: string) {
  return db
    .prepare("SELECT id, name FROM orgs WHERE slug = ?")
    .bind(slug)
    .first<Row<typeof orgs, "id" | "name">>();
}
