/** Transfers and shares of sites between organizations (pending until the destination decides). */
import type { orgMemberships, orgs, transfers } from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { batch } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { restoreMovedSiteInvitations, revokeMovedSiteInvitations } from "../invitations/store";
import { endOutsiderSiteMemberships, restoreOutsiderSiteMemberships } from "./grants-store";

type OrgName = (typeof orgs.$inferSelect)["name"];

/** A transfer joined with both organizations' names (`SELECT_TRANSFERS`). */
export type TransferRow = Pick<
  typeof transfers.$inferSelect,
  | "id"
  | "site_id"
  | "from_org_id"
  | "to_org_id"
  | "mode"
  | "share_role"
  | "status"
  | "created_at"
  | "expires_at"
  | "decided_at"
> & { from_org_name: OrgName; to_org_name: OrgName };

const SELECT_TRANSFERS = `SELECT t.id, t.site_id, t.from_org_id, t.to_org_id, fo.name AS from_org_name, tor.name AS to_org_name,
  t.mode, t.share_role, t.status, t.created_at, t.expires_at, t.decided_at
  FROM transfers t JOIN orgs fo ON fo.id = t.from_org_id JOIN orgs tor ON tor.id = t.to_org_id`;

/** Per organization where the user holds members:manage: its incoming pending transfers (zero included). */
export async function countIncomingPendingTransfers(db: D1Database, userId: string) {
  const { results } = await db
    .prepare(
      `SELECT o.id AS org_id, o.name, COUNT(t.id) AS count
       FROM org_memberships m
       JOIN orgs o ON o.id = m.org_id
       JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
       LEFT JOIN transfers t ON t.to_org_id = m.org_id AND t.status = 'pending' AND t.expires_at > ?
       WHERE m.user_id = ? AND EXISTS (SELECT 1 FROM json_each(r.permissions) WHERE value = 'members:manage')
       GROUP BY o.id, o.name ORDER BY o.name`,
    )
    .bind(nowIso(), userId)
    .all<Row<typeof orgMemberships, "org_id"> & Row<typeof orgs, "name"> & Computed<{ count: number }>>();
  return results;
}

/** The organization's live pending transfers (either direction) and its accepted shares, newest first. */
export async function listOrgTransfers(db: D1Database, orgId: string) {
  const { results } = await db
    .prepare(
      `${SELECT_TRANSFERS}
       WHERE (t.from_org_id = ?1 OR t.to_org_id = ?1)
         AND ((t.status = 'pending' AND t.expires_at > ?2) OR (t.status = 'accepted' AND t.mode = 'share'))
       ORDER BY t.created_at DESC LIMIT 500`,
    )
    .bind(orgId, nowIso())
    .all<TransferRow>();
  return results;
}

export function findTransfer(db: D1Database, id: string) {
  return db.prepare(`${SELECT_TRANSFERS} WHERE t.id = ?`).bind(id).first<TransferRow>();
}

export interface NewTransfer {
  id: string;
  siteId: string;
  fromOrgId: string;
  toOrgId: string;
  mode: "transfer" | "share";
  shareRole: string | null;
  createdBy: string;
  expiresAt: string;
}

function insertTransferStatement(db: D1Database, t: NewTransfer) {
  return db
    .prepare(
      `INSERT INTO transfers (id, site_id, from_org_id, to_org_id, mode, share_role, status, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    )
    .bind(t.id, t.siteId, t.fromOrgId, t.toOrgId, t.mode, t.shareRole, t.createdBy, nowIso(), t.expiresAt);
}

/**
 * Inserts a pending transfer; false when the site already has a live pending one (a unique index allows
 * one pending transfer per site). A pending row past its expiry no longer blocks: it is labelled expired
 * and the insert retried once.
 */
export async function insertPendingTransfer(
  db: D1Database,
  t: NewTransfer,
  events: D1PreparedStatement[] = [],
): Promise<boolean> {
  try {
    await batch(db, [insertTransferStatement(db, t), ...events]);
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const freed = await db
    .prepare(
      "UPDATE transfers SET status = 'expired' WHERE site_id = ? AND status = 'pending' AND expires_at <= ?",
    )
    .bind(t.siteId, nowIso())
    .run();
  if (freed.meta.changes === 0) return false;
  await batch(db, [insertTransferStatement(db, t), ...events]);
  return true;
}

/**
 * Compare-and-set: only a pending, unexpired transfer changes state, exactly once. An acceptance that moves
 * the site revokes the site's pending invitations (`revokeMovedSiteInvitations`) and ends the site
 * memberships of people outside the destination (`endOutsiderSiteMemberships`) in the same batch; a share
 * leaves them with the origin, which still owns the site.
 */
export async function decideTransfer(
  db: D1Database,
  id: string,
  status: "accepted" | "rejected" | "cancelled",
  decidedBy: string,
  now: string,
  events: D1PreparedStatement[] = [],
): Promise<boolean> {
  const decide = db
    .prepare(
      "UPDATE transfers SET status = ?1, decided_by = ?2, decided_at = ?3 WHERE id = ?4 AND status = 'pending' AND expires_at > ?3",
    )
    .bind(status, decidedBy, now, id);
  // The events (conditioned on the compare-and-set) follow it at once, before anything else changes rows.
  const statements = [decide, ...events];
  if (status === "accepted") {
    statements.push(revokeMovedSiteInvitations(db, id, now), ...endOutsiderSiteMemberships(db, id, now));
  }
  const [decided] = await batch(db, statements);
  return (decided?.changes ?? 0) === 1;
}

/** Undoes an acceptance the site registry did not carry out, the site's invitations and members included. */
export async function reopenTransfer(db: D1Database, id: string, events: D1PreparedStatement[] = []) {
  await batch(db, [
    restoreMovedSiteInvitations(db, id),
    ...restoreOutsiderSiteMemberships(db, id),
    db
      .prepare("UPDATE transfers SET status = 'pending', decided_by = NULL, decided_at = NULL WHERE id = ?")
      .bind(id),
    ...events,
  ]);
}
