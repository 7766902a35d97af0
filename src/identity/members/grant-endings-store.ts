/**
 * The membership changes the triggers of migration 0009 record (`member_grant_endings`), and what the
 * delivery reads to decide whether the person still holds `integrations` where the change happened.
 * The endings are addressed by `rowid` (the table has no id column) and the owner rules are SQL, so those
 * statements stay raw; the sent grants' reads and writes go through drizzle's query builder.
 */
import { and, eq, isNull, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import {
  type emailAddresses,
  invitations,
  type memberGrantEndings,
  transfers,
} from "../../../schema/identity";
import type { OrgMembership, SiteMembership } from "../../lib/edge";
import type { Computed, Row } from "../../lib/rows";
import { batch, inJsonEach, prepared, query } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { asOrgMembership, asSiteMembership } from "../core/edge-context";
import { orgMembershipsQuery, siteMembershipsQuery } from "../core/edge-context-store";
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
  const [orgs, sites] = await batch(db, [
    orgMembershipsQuery(db, userId, orgId),
    siteMembershipsQuery(db, userId, siteId),
  ]);
  return { orgs: orgs.rows.map(asOrgMembership), sites: sites.rows.map(asSiteMembership) };
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
  type Address = Row<typeof emailAddresses, "address">;
  const [owners, person] = await batch(db, [
    query<Address>(
      db,
      `SELECT DISTINCT e.address FROM email_addresses e WHERE e.is_primary = 1 AND e.user_id != ?3 AND e.user_id IN (
           SELECT m.user_id FROM org_memberships m WHERE m.org_id = ?1 AND ${ownerRoleSql("org", "m")}
           UNION
           SELECT sm.user_id FROM site_memberships sm
           WHERE sm.site_id IN (SELECT value FROM json_each(?2)) AND ${ownerRoleSql("site", "sm")})
         ORDER BY e.address`,
      orgId,
      JSON.stringify(siteIds),
      userId,
    ),
    query<Address>(db, "SELECT address FROM email_addresses WHERE user_id = ? AND is_primary = 1", userId),
  ]);
  return { owners: owners.rows.map((r) => r.address), person: person.rows[0]?.address ?? null };
}

/** The pending invitations and outgoing transfer offers a person sent, by id. */
export interface SentGrants {
  invitations: string[];
  transfers: string[];
}

/**
 * What the person sent up to `endedAt` and nobody took yet: in organization `orgId`, the invitations of both
 * scopes (a site invitation only where the person no longer owns the site: a site's owner invites to it)
 * and the transfer offers of its sites; or, for site `siteId`, that site's invitations.
 */
export async function pendingSentGrants(
  db: D1Database,
  input: { userId: string; endedAt: string } & ({ orgId: string } | { siteId: string }),
): Promise<SentGrants> {
  const { userId, endedAt } = input;
  const pending = (t: string) =>
    `${t}accepted_at IS NULL AND ${t}revoked_at IS NULL AND ${t}invited_by = ?2 AND ${t}created_at <= ?3`;
  if ("siteId" in input) {
    const results = await drizzle(db)
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(invitations.scope, "site"),
          eq(invitations.site_id, input.siteId),
          isNull(invitations.accepted_at),
          isNull(invitations.revoked_at),
          eq(invitations.invited_by, userId),
          lte(invitations.created_at, endedAt),
        ),
      )
      .all();
    return { invitations: results.map((r) => r.id), transfers: [] };
  }
  const [sent, offered] = await batch(db, [
    query<Row<typeof invitations, "id">>(
      db,
      `SELECT i.id FROM invitations i WHERE i.org_id = ?1 AND ${pending("i.")}
           AND (i.scope = 'org' OR NOT EXISTS (SELECT 1 FROM site_memberships sm
             WHERE sm.site_id = i.site_id AND sm.user_id = ?2 AND ${ownerRoleSql("site", "sm")}))`,
      input.orgId,
      userId,
      endedAt,
    ),
    query<Row<typeof transfers, "id">>(
      db,
      "SELECT id FROM transfers WHERE from_org_id = ?1 AND created_by = ?2 AND status = 'pending' AND created_at <= ?3",
      input.orgId,
      userId,
      endedAt,
    ),
  ]);
  return { invitations: sent.rows.map((r) => r.id), transfers: offered.rows.map((r) => r.id) };
}

/**
 * Ends them, for the delivery's batch: the invitations revoked and the offers cancelled, each only while
 * still pending (an invitation accepted or an offer decided meanwhile stays as it is). Each statement is
 * followed by the organization's event when it changed a row (`events`, conditioned on it).
 */
export function endSentGrantsStatements(
  db: D1Database,
  sent: SentGrants,
  events: { invitations: D1PreparedStatement; transfers: D1PreparedStatement },
): D1PreparedStatement[] {
  const now = nowIso();
  const out: D1PreparedStatement[] = [];
  if (sent.invitations.length > 0) {
    out.push(
      prepared(
        db,
        drizzle(db)
          .update(invitations)
          .set({ revoked_at: now })
          .where(
            and(
              inJsonEach(invitations.id, sent.invitations),
              isNull(invitations.accepted_at),
              isNull(invitations.revoked_at),
            ),
          ),
      ),
      events.invitations,
    );
  }
  if (sent.transfers.length > 0) {
    out.push(
      prepared(
        db,
        drizzle(db)
          .update(transfers)
          .set({ status: "cancelled", decided_at: now })
          .where(and(inJsonEach(transfers.id, sent.transfers), eq(transfers.status, "pending"))),
      ),
      events.transfers,
    );
  }
  return out;
}
