/**
 * Transfers and shares of sites between organizations (pending until the destination decides). Queries go
 * through drizzle's query builder, except the per-organization count of incoming transfers (it reads the
 * role's permissions with `json_each`).
 */
import { and, desc, eq, gt, lte, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { type orgMemberships, orgs, transfers } from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { type BatchEntry, batch } from "../../lib/sql";
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

/** Transfers joined with both organizations' names. */
function selectTransfers(db: D1Database) {
  const fo = alias(orgs, "fo");
  const tor = alias(orgs, "tor");
  return drizzle(db)
    .select({
      id: transfers.id,
      site_id: transfers.site_id,
      from_org_id: transfers.from_org_id,
      to_org_id: transfers.to_org_id,
      from_org_name: fo.name,
      to_org_name: tor.name,
      mode: transfers.mode,
      share_role: transfers.share_role,
      status: transfers.status,
      created_at: transfers.created_at,
      expires_at: transfers.expires_at,
      decided_at: transfers.decided_at,
    })
    .from(transfers)
    .innerJoin(fo, eq(fo.id, transfers.from_org_id))
    .innerJoin(tor, eq(tor.id, transfers.to_org_id));
}

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
  return selectTransfers(db)
    .where(
      and(
        or(eq(transfers.from_org_id, orgId), eq(transfers.to_org_id, orgId)),
        or(
          and(eq(transfers.status, "pending"), gt(transfers.expires_at, nowIso())),
          and(eq(transfers.status, "accepted"), eq(transfers.mode, "share")),
        ),
      ),
    )
    .orderBy(desc(transfers.created_at))
    .limit(500)
    .all();
}

export async function findTransfer(db: D1Database, id: string): Promise<TransferRow | null> {
  return (await selectTransfers(db).where(eq(transfers.id, id)).get()) ?? null;
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
  return drizzle(db).insert(transfers).values({
    id: t.id,
    site_id: t.siteId,
    from_org_id: t.fromOrgId,
    to_org_id: t.toOrgId,
    mode: t.mode,
    share_role: t.shareRole,
    status: "pending",
    created_by: t.createdBy,
    created_at: nowIso(),
    expires_at: t.expiresAt,
  });
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
  const freed = await drizzle(db)
    .update(transfers)
    .set({ status: "expired" })
    .where(
      and(
        eq(transfers.site_id, t.siteId),
        eq(transfers.status, "pending"),
        lte(transfers.expires_at, nowIso()),
      ),
    )
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
  /** More statements of an acceptance, each guarded by it (the site's MCP agents' grants: oauth/endings.ts). */
  onAccept: D1PreparedStatement[] = [],
): Promise<boolean> {
  const decide = drizzle(db)
    .update(transfers)
    .set({ status, decided_by: decidedBy, decided_at: now })
    .where(and(eq(transfers.id, id), eq(transfers.status, "pending"), gt(transfers.expires_at, now)));
  // The events (conditioned on the compare-and-set) follow it at once, before anything else changes rows.
  const statements: BatchEntry[] = [decide, ...events];
  if (status === "accepted") {
    statements.push(
      revokeMovedSiteInvitations(db, id, now),
      ...endOutsiderSiteMemberships(db, id, now),
      ...onAccept,
    );
  }
  const [decided] = await batch(db, statements);
  return (decided?.changes ?? 0) === 1;
}

/** Undoes an acceptance the site registry did not carry out, the site's invitations and members included. */
export async function reopenTransfer(db: D1Database, id: string, events: D1PreparedStatement[] = []) {
  await batch(db, [
    restoreMovedSiteInvitations(db, id),
    ...restoreOutsiderSiteMemberships(db, id),
    drizzle(db)
      .update(transfers)
      .set({ status: "pending", decided_by: null, decided_at: null })
      .where(eq(transfers.id, id)),
    ...events,
  ]);
}
