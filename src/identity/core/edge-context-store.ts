/** What the edge context reads (core/edge-context.ts): the person, their memberships and operator capability. */
import type {
  orgMemberships,
  platformOperators,
  roles,
  siteMemberships,
  users,
} from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { query } from "../../lib/sql";
import { ownerRoleSql } from "../members/store";

/** An organization membership with its role's permissions, as `orgMembershipsQuery` reads it. */
export type OrgMembershipRow = Row<typeof orgMemberships, "org_id" | "role"> &
  Row<typeof roles, "permissions" | "is_system">;

/**
 * A site membership with its organization, whether its role is the site's owner role, and its role's
 * permissions (a custom site role's, by name; the presets carry none).
 */
export type SiteMembershipRow = Row<typeof siteMemberships, "site_id" | "role" | "org_id"> &
  Row<typeof roles, "permissions"> &
  Computed<{ is_system: number }>;

/** The person's organization memberships, oldest first: every one, or those of `orgId` (none when null). */
export function orgMembershipsQuery(db: D1Database, userId: string, orgId?: string | null) {
  return query<OrgMembershipRow>(
    db,
    `SELECT m.org_id, m.role, COALESCE(r.permissions, '[]') AS permissions, COALESCE(r.is_system, 0) AS is_system
       FROM org_memberships m
       LEFT JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
       WHERE m.user_id = ?1 AND (?3 = 1 OR m.org_id = ?2) ORDER BY m.created_at`,
    userId,
    orgId ?? null,
    orgId === undefined ? 1 : 0,
  );
}

/** The person's site memberships, oldest first: every one (`siteId` null), or that site's. */
export function siteMembershipsQuery(db: D1Database, userId: string, siteId: string | null = null) {
  return query<SiteMembershipRow>(
    db,
    `SELECT m.site_id, m.role, m.org_id, ${ownerRoleSql("site", "m")} AS is_system,
            COALESCE((SELECT r.permissions FROM roles r WHERE r.scope = 'site' AND r.slug = m.role
                        AND (r.org_id IS NULL OR r.org_id = m.org_id) ORDER BY r.org_id IS NULL LIMIT 1), '[]')
              AS permissions
       FROM site_memberships m WHERE m.user_id = ?1 AND (?2 IS NULL OR m.site_id = ?2) ORDER BY m.created_at`,
    userId,
    siteId,
  );
}

/** The account's row, when it exists. */
export function userExistsQuery(db: D1Database, userId: string) {
  return query<Row<typeof users, "id">>(db, "SELECT id FROM users WHERE id = ?", userId);
}

/** The account's platform operator capability, when it has one. */
export function operatorQuery(db: D1Database, userId: string) {
  return query<Row<typeof platformOperators, "capability">>(
    db,
    "SELECT capability FROM platform_operators WHERE user_id = ?",
    userId,
  );
}
