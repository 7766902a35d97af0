/** Invitations to an organization or one of its sites; only the token's hash is stored. */
import type { invitations } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Row } from "../../lib/rows";
import { batch, type Outcome } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { keepsAnOwnerSql, ownerRoleSql, titularFixup } from "../members/store";

/** An invitation as read back: never its token's hash. */
export type InvitationRow = Omit<typeof invitations.$inferSelect, "token_hash">;

const COLUMNS =
  "id, org_id, site_id, scope, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at";

/**
 * Whose invitations a request may touch: an organization's (both scopes) or one site's. An id from
 * elsewhere matches nothing, exactly like a missing one.
 */
export type InvitationOwner = { orgId: string } | { siteId: string };

function ownerFilter(owner: InvitationOwner): { sql: string; value: string } {
  return "siteId" in owner
    ? { sql: "site_id = ?", value: owner.siteId }
    : { sql: "org_id = ?", value: owner.orgId };
}

export async function insertInvitation(
  db: D1Database,
  input: {
    id: string;
    orgId: string;
    siteId: string | null;
    email: string;
    role: string;
    tokenHash: string;
    invitedBy: string;
    expiresAt: string;
  },
  event?: D1PreparedStatement,
) {
  const insert = db
    .prepare(
      `INSERT INTO invitations (id, org_id, site_id, scope, email, role, token_hash, invited_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      input.id,
      input.orgId,
      input.siteId,
      input.siteId ? "site" : "org",
      input.email,
      input.role,
      input.tokenHash,
      input.invitedBy,
      nowIso(),
      input.expiresAt,
    );
  await batch(db, event ? [insert, event] : [insert]);
}

/** Pending (unaccepted, unrevoked, unexpired) invitations, newest first. */
export async function listPendingInvitations(db: D1Database, owner: InvitationOwner) {
  const filter = ownerFilter(owner);
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM invitations
       WHERE ${filter.sql} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?
       ORDER BY created_at DESC LIMIT 200`,
    )
    .bind(filter.value, nowIso())
    .all<InvitationRow>();
  return results;
}

/** False when no pending invitation matched. */
export async function revokePendingInvitation(
  db: D1Database,
  id: string,
  owner: InvitationOwner,
  event?: D1PreparedStatement,
): Promise<boolean> {
  const filter = ownerFilter(owner);
  const revoke = db
    .prepare(
      `UPDATE invitations SET revoked_at = ? WHERE id = ? AND ${filter.sql} AND accepted_at IS NULL AND revoked_at IS NULL`,
    )
    .bind(nowIso(), id, filter.value);
  const [res] = await batch(db, event ? [revoke, event] : [revoke]);
  return res?.changes === 1;
}

/** The invited address of an invitation in any state, or null. */
export async function invitationEmail(
  db: D1Database,
  id: string,
  owner: InvitationOwner,
): Promise<string | null> {
  const filter = ownerFilter(owner);
  const row = await db
    .prepare(`SELECT email FROM invitations WHERE id = ? AND ${filter.sql}`)
    .bind(id, filter.value)
    .first<Row<typeof invitations, "email">>();
  return row?.email ?? null;
}

/**
 * Replaces the token and restarts the expiry in one UPDATE (the old link dies with it; an expired
 * invitation revives). "accepted" for an accepted invitation, null when none matched.
 */
export async function replaceInvitationToken(
  db: D1Database,
  id: string,
  owner: InvitationOwner,
  tokenHash: string,
  expiresAt: string,
): Promise<InvitationRow | "accepted" | null> {
  const filter = ownerFilter(owner);
  const row = await db
    .prepare(
      `UPDATE invitations SET token_hash = ?, expires_at = ?
       WHERE id = ? AND revoked_at IS NULL AND accepted_at IS NULL AND ${filter.sql}
       RETURNING ${COLUMNS}`,
    )
    .bind(tokenHash, expiresAt, id, filter.value)
    .first<InvitationRow>();
  if (row) return row;
  const accepted = await db
    .prepare(
      `SELECT 1 AS ok FROM invitations WHERE id = ? AND revoked_at IS NULL AND accepted_at IS NOT NULL AND ${filter.sql}`,
    )
    .bind(id, filter.value)
    .first();
  return accepted ? "accepted" : null;
}

/** The site of transfer `?1` when it was accepted as a move (not a share); NULL otherwise. */
const MOVED_SITE =
  "(SELECT site_id FROM transfers WHERE id = ?1 AND status = 'accepted' AND mode = 'transfer')";

/**
 * For the batch that accepts transfer `transferId` (decided at `decidedAt`): revokes every unaccepted
 * site-scope invitation of the site it moves, expired ones too (a resend would revive them). They are the
 * origin's, and the origin loses every say over the site; an old link must not grant it to someone the new
 * organization could not remove. Matches nothing when the transfer is a share or was not accepted.
 */
export function revokeMovedSiteInvitations(db: D1Database, transferId: string, decidedAt: string) {
  return db
    .prepare(
      `UPDATE invitations SET revoked_at = ?2
       WHERE scope = 'site' AND accepted_at IS NULL AND revoked_at IS NULL AND site_id = ${MOVED_SITE}
         AND EXISTS (SELECT 1 FROM transfers WHERE id = ?1 AND decided_at = ?2)`,
    )
    .bind(transferId, decidedAt);
}

/**
 * For the batch that reopens transfer `transferId` (before it clears `decided_at`): the invitations its
 * acceptance revoked are pending again, nothing half-done.
 */
export function restoreMovedSiteInvitations(db: D1Database, transferId: string) {
  return db
    .prepare(
      `UPDATE invitations SET revoked_at = NULL
       WHERE scope = 'site' AND accepted_at IS NULL AND site_id = ${MOVED_SITE}
         AND revoked_at = (SELECT decided_at FROM transfers WHERE id = ?1)`,
    )
    .bind(transferId);
}

export function findLiveInvitationByToken(db: D1Database, tokenHash: string) {
  return db
    .prepare(
      `SELECT ${COLUMNS} FROM invitations
       WHERE token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`,
    )
    .bind(tokenHash, nowIso())
    .first<InvitationRow>();
}

/**
 * Accepts an invitation in one batch: the claim is a compare-and-set on the token and every other write
 * (the new account, when given, and the membership) only happens if the claim won. The claim also holds
 * the owner rule of a role change: accepting a non-owner role never demotes the last owner of the
 * organization or site ("last_owner", the invitation stays pending). "lost" when the invitation was
 * accepted or revoked meanwhile, or another acceptance proved the same address at the same moment.
 */
export async function acceptInvitation(
  db: D1Database,
  invitation: InvitationRow,
  tokenHash: string,
  userId: string,
  newAccount: { passwordHash: string } | null,
  event?: D1PreparedStatement,
): Promise<"accepted" | "last_owner" | "lost"> {
  const now = nowIso();
  const scope = invitation.scope;
  const claim = db
    .prepare(
      `UPDATE invitations SET accepted_at = ?1
       WHERE id = ?2 AND token_hash = ?3 AND accepted_at IS NULL AND revoked_at IS NULL
         AND ${keepsAnOwnerSql(scope, "?4", "?5", ownerRoleSql(scope, "invitations"))}`,
    )
    .bind(now, invitation.id, tokenHash, scope === "site" ? invitation.site_id : invitation.org_id, userId);
  const won = "EXISTS (SELECT 1 FROM invitations WHERE id = ? AND accepted_at = ?)";
  // The event (conditioned on the claim) follows the claim at once.
  const statements: D1PreparedStatement[] = event ? [claim, event] : [claim];
  if (newAccount) {
    // Possession of the e-mailed token proves the address.
    statements.push(
      db
        .prepare(
          `INSERT INTO users (id, status, password_hash, created_at, updated_at) SELECT ?, 'active', ?, ?, ? WHERE ${won}`,
        )
        .bind(userId, newAccount.passwordHash, now, now, invitation.id, now),
      db
        .prepare(
          `INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at)
           SELECT ?, ?, ?, ?, 1, ? WHERE ${won}`,
        )
        .bind(newId(), userId, invitation.email, now, now, invitation.id, now),
    );
  }
  if (scope === "site") {
    statements.push(
      db
        .prepare(
          `INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) SELECT ?, ?, ?, ?, ? WHERE ${won}
           ON CONFLICT (site_id, user_id) DO UPDATE SET role = excluded.role`,
        )
        .bind(invitation.site_id, userId, invitation.org_id, invitation.role, now, invitation.id, now),
    );
  } else {
    statements.push(
      db
        .prepare(
          `INSERT INTO org_memberships (org_id, user_id, role, created_at) SELECT ?, ?, ?, ? WHERE ${won}
           ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role`,
        )
        .bind(invitation.org_id, userId, invitation.role, now, invitation.id, now),
      titularFixup(db, invitation.org_id),
    );
  }
  let outcomes: Outcome<never>[];
  try {
    outcomes = await batch(db, statements);
  } catch (err) {
    if (isUniqueViolation(err)) return "lost";
    throw err;
  }
  if ((outcomes[0]?.changes ?? 0) === 1) return "accepted";
  // The claim lost to the owner rule only if the invitation is still there to claim.
  const open = await db
    .prepare(
      "SELECT 1 AS ok FROM invitations WHERE id = ? AND token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL",
    )
    .bind(invitation.id, tokenHash)
    .first();
  return open ? "last_owner" : "lost";
}
