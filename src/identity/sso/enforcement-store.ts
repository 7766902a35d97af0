/** The rows single sign-on's membership rule reads (sso/enforcement.ts) and the break-glass record. */
import { drizzle } from "drizzle-orm/d1";
import { type orgSso, type sessions, ssoBreakGlass } from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { query } from "../../lib/sql";
import { ownerRoleSql } from "../members/store";

/** A session's sign-in method and family, and the organization whose provider signed it in (or null). */
export type SsoSessionFactRow = Row<typeof sessions, "auth_method" | "family_id"> &
  Computed<{ sso_org: string | null }>;

/** The two statements the edge context adds to its batch: the session's sign-in and the enforcing orgs. */
export function ssoFactQueries(db: D1Database, userId: string, sessionId: string) {
  return [
    query<SsoSessionFactRow>(
      db,
      `SELECT s.auth_method, s.family_id, x.org_id AS sso_org FROM sessions s
         LEFT JOIN sso_sessions x ON x.family_id = s.family_id WHERE s.id = ? AND s.user_id = ?`,
      sessionId,
      userId,
    ),
    query<Row<typeof orgSso, "org_id">>(
      db,
      `SELECT o.org_id FROM org_sso o JOIN org_memberships m ON m.org_id = o.org_id AND m.user_id = ?
         WHERE o.enforced = 1`,
      userId,
    ),
  ] as const;
}

/** A row when `userId` holds an owner role of organization `orgId`. */
export function orgOwnerQuery(db: D1Database, orgId: string, userId: string) {
  return query<Computed<{ ok: number }>>(
    db,
    `SELECT 1 AS ok FROM org_memberships m WHERE m.org_id = ? AND m.user_id = ? AND ${ownerRoleSql("org", "m")}`,
    orgId,
    userId,
  );
}

/** Records a break-glass sign-in of a session family in an organization; false when it was already recorded. */
export async function insertBreakGlass(
  db: D1Database,
  familyId: string,
  orgId: string,
  userId: string,
  at: string,
): Promise<boolean> {
  const res = await drizzle(db)
    .insert(ssoBreakGlass)
    .values({ family_id: familyId, org_id: orgId, user_id: userId, created_at: at })
    .onConflictDoNothing()
    .run();
  return res.meta.changes === 1;
}
