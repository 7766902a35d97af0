/**
 * The origin's grants on a site that a `transfer` acceptance ends (issue 19): the site-scope memberships
 * of people who are not members of the destination organization. They end in the acceptance's own batch
 * (`endOutsiderSiteMemberships`), kept aside per transfer so that an acceptance the site registry refuses
 * puts them back (`restoreOutsiderSiteMemberships`). A `share` ends nothing: the origin still owns the site.
 * Raw SQL but for the restore's cleanup: the set-aside and restore are `INSERT … SELECT`, the delete picks
 * rows by `rowid` through the same join, and the count reads two scalar subqueries.
 */

import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { transferEndedSiteMemberships } from "../../../schema/identity";
import { prepared } from "../../lib/sql";

/** Transfer `?1` when accepted as a move at `?2` (this very decision, not an older one). */
const ACCEPTED_MOVE =
  "SELECT site_id, to_org_id FROM transfers WHERE id = ?1 AND status = 'accepted' AND mode = 'transfer' AND decided_at = ?2";

const OUTSIDERS = `FROM site_memberships m JOIN (${ACCEPTED_MOVE}) t ON t.site_id = m.site_id
  WHERE NOT EXISTS (SELECT 1 FROM org_memberships o WHERE o.org_id = t.to_org_id AND o.user_id = m.user_id)`;

/** For the acceptance's batch, after the statement that marks it accepted: set aside, then delete. */
export function endOutsiderSiteMemberships(db: D1Database, transferId: string, decidedAt: string) {
  return [
    db
      .prepare(
        `INSERT OR IGNORE INTO transfer_ended_site_memberships (transfer_id, site_id, user_id, org_id, role, created_at)
         SELECT ?1, m.site_id, m.user_id, m.org_id, m.role, m.created_at ${OUTSIDERS}`,
      )
      .bind(transferId, decidedAt),
    db
      .prepare(`DELETE FROM site_memberships WHERE rowid IN (SELECT m.rowid ${OUTSIDERS})`)
      .bind(transferId, decidedAt),
  ];
}

/** For the batch that reopens the transfer: the memberships its acceptance ended are back. */
export function restoreOutsiderSiteMemberships(db: D1Database, transferId: string) {
  return [
    db
      .prepare(
        `INSERT OR IGNORE INTO site_memberships (site_id, user_id, org_id, role, created_at)
         SELECT site_id, user_id, org_id, role, created_at FROM transfer_ended_site_memberships WHERE transfer_id = ?`,
      )
      .bind(transferId),
    prepared(
      db,
      drizzle(db)
        .delete(transferEndedSiteMemberships)
        .where(eq(transferEndedSiteMemberships.transfer_id, transferId)),
    ),
  ];
}

/** What accepting transfer offers of these sites to `toOrgId` would end in identity, per site. */
export interface IdentityGrantCounts {
  site_members: number;
  pending_invitations: number;
}

/**
 * Per site: its members who are not members of `toOrgId`, and its live site-scope invitations (every
 * pending invitation of a moved site is revoked by the acceptance).
 */
export async function countEndingGrants(
  db: D1Database,
  siteId: string,
  toOrgId: string,
  now: string,
): Promise<IdentityGrantCounts> {
  const row = await db
    .prepare(
      `SELECT
         (SELECT count(*) FROM site_memberships m WHERE m.site_id = ?1
            AND NOT EXISTS (SELECT 1 FROM org_memberships o WHERE o.org_id = ?2 AND o.user_id = m.user_id)) AS site_members,
         (SELECT count(*) FROM invitations WHERE scope = 'site' AND site_id = ?1 AND accepted_at IS NULL
            AND revoked_at IS NULL AND expires_at > ?3) AS pending_invitations`,
    )
    .bind(siteId, toOrgId, now)
    .first<IdentityGrantCounts>();
  return row ?? { site_members: 0, pending_invitations: 0 };
}
