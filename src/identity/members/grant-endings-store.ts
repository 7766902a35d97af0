/**
 * The membership changes the triggers of migration 0009 record (`member_grant_endings`), and what the
 * delivery reads to decide whether the person still holds `integrations` where the change happened.
 */
import type { emailAddresses, memberGrantEndings } from "../../../schema/identity";
import type { OrgMembership, SiteMembership } from "../../lib/edge";
import type { Computed, Row } from "../../lib/rows";
import { nowIso } from "../core/crypto";
import {
  asOrgMembership,
  asSiteMembership,
  type OrgMembershipRow,
  orgMembershipsStatement,
  type SiteMembershipRow,
  siteMembershipsStatement,
} from "../core/edge-context";
import { ownerRoleSql } from "./store";

/** A recorded ending; `id` is its rowid (the table has no id column). */
export type GrantEndingRow = Row<
  typeof memberGrantEndings,
  "user_id" | "org_id" | "site_id" | "ended_at" | "attempts"
> &
  Computed<{ id: number }>;

/** Endings not delivered yet, oldest first: of one person (a route that just changed them), or any. */
export async function pendingGrantEndings(
  db: D1Database,
  limit: number,
  userId?: string,
): Promise<GrantEndingRow[]> {
  const { results } = await db
    .prepare(
      `SELECT rowid AS id, user_id, org_id, site_id, ended_at, attempts FROM member_grant_endings
       WHERE delivered_at IS NULL AND (?1 IS NULL OR user_id = ?1) ORDER BY rowid LIMIT ?2`,
    )
    .bind(userId ?? null, limit)
    .all<GrantEndingRow>();
  return results;
}

/** Marks the ending delivered; `changes()` is 1 only for the first delivery (a concurrent one finds 0). */
export function markDelivered(db: D1Database, id: number): D1PreparedStatement {
  return db
    .prepare("UPDATE member_grant_endings SET delivered_at = ? WHERE rowid = ? AND delivered_at IS NULL")
    .bind(nowIso(), id);
}

export async function markAttempted(db: D1Database, id: number): Promise<void> {
  await db.prepare("UPDATE member_grant_endings SET attempts = attempts + 1 WHERE rowid = ?").bind(id).run();
}

/**
 * The person's memberships as the edge would describe them: in organization `orgId` (none when null), and
 * of site `siteId` (every site membership when null): what the one permission model
 * (src/lib/site-permissions.ts) reads to say whether they still hold `integrations` there.
 */
export async function membershipsIn(
  db: D1Database,
  userId: string,
  orgId: string | null,
  siteId: string | null,
): Promise<{ orgs: OrgMembership[]; sites: SiteMembership[] }> {
  const [orgs, sites] = await db.batch([
    orgMembershipsStatement(db, userId, orgId),
    siteMembershipsStatement(db, userId, siteId),
  ]);
  return {
    orgs: ((orgs?.results ?? []) as OrgMembershipRow[]).map(asOrgMembership),
    sites: ((sites?.results ?? []) as SiteMembershipRow[]).map(asSiteMembership),
  };
}

/**
 * Who is told that a person's integrations ended: the owners of the organization and the owners of the
 * sites concerned (primary addresses, each once), and the person's own primary address (for the notice's
 * text; null when erased).
 */
export async function noticeRecipients(
  db: D1Database,
  orgId: string | null,
  siteIds: string[],
  userId: string,
): Promise<{ owners: string[]; person: string | null }> {
  const [owners, person] = await db.batch([
    db
      .prepare(
        `SELECT DISTINCT e.address FROM email_addresses e WHERE e.is_primary = 1 AND e.user_id != ?3 AND e.user_id IN (
           SELECT m.user_id FROM org_memberships m WHERE m.org_id = ?1 AND ${ownerRoleSql("org", "m")}
           UNION
           SELECT sm.user_id FROM site_memberships sm
           WHERE sm.site_id IN (SELECT value FROM json_each(?2)) AND ${ownerRoleSql("site", "sm")})
         ORDER BY e.address`,
      )
      .bind(orgId, JSON.stringify(siteIds), userId),
    db.prepare("SELECT address FROM email_addresses WHERE user_id = ? AND is_primary = 1").bind(userId),
  ]);
  type Address = Row<typeof emailAddresses, "address">;
  return {
    owners: ((owners?.results ?? []) as Address[]).map((r) => r.address),
    person: ((person?.results ?? []) as Address[])[0]?.address ?? null,
  };
}
