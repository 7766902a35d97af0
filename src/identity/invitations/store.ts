/**
 * Invitations to an organization or one of its sites; only the token's hash is stored. Queries go through
 * drizzle's query builder, except the acceptance's claim (the owner rule written into the UPDATE) and its
 * writes guarded by the claim (`INSERT … SELECT … WHERE` the claim won).
 */
import { and, desc, eq, exists, getTableColumns, gt, isNotNull, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { invitations, transfers } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { batch, type Outcome, prepared } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { keepsAnOwnerSql, ownerRoleSql, titularFixup } from "../members/store";

/** An invitation as read back: never its token's hash. */
export type InvitationRow = Omit<typeof invitations.$inferSelect, "token_hash">;

const { token_hash: _tokenHash, ...COLUMNS } = getTableColumns(invitations);

/**
 * Whose invitations a request may touch: an organization's (both scopes) or one site's. An id from
 * elsewhere matches nothing, exactly like a missing one.
 */
export type InvitationOwner = { orgId: string } | { siteId: string };

function ownerFilter(owner: InvitationOwner) {
  return "siteId" in owner ? eq(invitations.site_id, owner.siteId) : eq(invitations.org_id, owner.orgId);
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
  const insert = drizzle(db)
    .insert(invitations)
    .values({
      id: input.id,
      org_id: input.orgId,
      site_id: input.siteId,
      scope: input.siteId ? "site" : "org",
      email: input.email,
      role: input.role,
      token_hash: input.tokenHash,
      invited_by: input.invitedBy,
      created_at: nowIso(),
      expires_at: input.expiresAt,
    });
  await batch(db, event ? [insert, event] : [insert]);
}

/** Pending (unaccepted, unrevoked, unexpired) invitations, newest first. */
export async function listPendingInvitations(db: D1Database, owner: InvitationOwner) {
  return drizzle(db)
    .select(COLUMNS)
    .from(invitations)
    .where(
      and(
        ownerFilter(owner),
        isNull(invitations.accepted_at),
        isNull(invitations.revoked_at),
        gt(invitations.expires_at, nowIso()),
      ),
    )
    .orderBy(desc(invitations.created_at))
    .limit(200)
    .all();
}

/** False when no pending invitation matched. */
export async function revokePendingInvitation(
  db: D1Database,
  id: string,
  owner: InvitationOwner,
  event?: D1PreparedStatement,
): Promise<boolean> {
  const revoke = drizzle(db)
    .update(invitations)
    .set({ revoked_at: nowIso() })
    .where(
      and(
        eq(invitations.id, id),
        ownerFilter(owner),
        isNull(invitations.accepted_at),
        isNull(invitations.revoked_at),
      ),
    );
  const [res] = await batch(db, event ? [revoke, event] : [revoke]);
  return res?.changes === 1;
}

/** The invited address of an invitation in any state, or null. */
export async function invitationEmail(
  db: D1Database,
  id: string,
  owner: InvitationOwner,
): Promise<string | null> {
  const row = await drizzle(db)
    .select({ email: invitations.email })
    .from(invitations)
    .where(and(eq(invitations.id, id), ownerFilter(owner)))
    .get();
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
  const d = drizzle(db);
  const row = await d
    .update(invitations)
    .set({ token_hash: tokenHash, expires_at: expiresAt })
    .where(
      and(
        eq(invitations.id, id),
        isNull(invitations.revoked_at),
        isNull(invitations.accepted_at),
        ownerFilter(owner),
      ),
    )
    .returning(COLUMNS)
    .get();
  if (row) return row;
  const accepted = await d
    .select({ ok: sql<number>`1` })
    .from(invitations)
    .where(
      and(
        eq(invitations.id, id),
        isNull(invitations.revoked_at),
        isNotNull(invitations.accepted_at),
        ownerFilter(owner),
      ),
    )
    .get();
  return accepted ? "accepted" : null;
}

/** The site of transfer `transferId` when it was accepted as a move (not a share); NULL otherwise. */
function movedSite(db: D1Database, transferId: string) {
  return drizzle(db)
    .select({ site_id: transfers.site_id })
    .from(transfers)
    .where(
      and(eq(transfers.id, transferId), eq(transfers.status, "accepted"), eq(transfers.mode, "transfer")),
    );
}

/**
 * For the batch that accepts transfer `transferId` (decided at `decidedAt`): revokes every unaccepted
 * site-scope invitation of the site it moves, expired ones too (a resend would revive them). They are the
 * origin's, and the origin loses every say over the site; an old link must not grant it to someone the new
 * organization could not remove. Matches nothing when the transfer is a share or was not accepted.
 */
export function revokeMovedSiteInvitations(db: D1Database, transferId: string, decidedAt: string) {
  const d = drizzle(db);
  return prepared(
    db,
    d
      .update(invitations)
      .set({ revoked_at: decidedAt })
      .where(
        and(
          eq(invitations.scope, "site"),
          isNull(invitations.accepted_at),
          isNull(invitations.revoked_at),
          eq(invitations.site_id, movedSite(db, transferId)),
          exists(
            d
              .select({ one: sql`1` })
              .from(transfers)
              .where(and(eq(transfers.id, transferId), eq(transfers.decided_at, decidedAt))),
          ),
        ),
      ),
  );
}

/**
 * For the batch that reopens transfer `transferId` (before it clears `decided_at`): the invitations its
 * acceptance revoked are pending again, nothing half-done.
 */
export function restoreMovedSiteInvitations(db: D1Database, transferId: string) {
  const d = drizzle(db);
  return prepared(
    db,
    d
      .update(invitations)
      .set({ revoked_at: null })
      .where(
        and(
          eq(invitations.scope, "site"),
          isNull(invitations.accepted_at),
          eq(invitations.site_id, movedSite(db, transferId)),
          eq(
            invitations.revoked_at,
            d
              .select({ decided_at: transfers.decided_at })
              .from(transfers)
              .where(eq(transfers.id, transferId)),
          ),
        ),
      ),
  );
}

export async function findLiveInvitationByToken(
  db: D1Database,
  tokenHash: string,
): Promise<InvitationRow | null> {
  const row = await drizzle(db)
    .select(COLUMNS)
    .from(invitations)
    .where(
      and(
        eq(invitations.token_hash, tokenHash),
        isNull(invitations.accepted_at),
        isNull(invitations.revoked_at),
        gt(invitations.expires_at, nowIso()),
      ),
    )
    .get();
  return row ?? null;
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
  const open = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(invitations)
    .where(
      and(
        eq(invitations.id, invitation.id),
        eq(invitations.token_hash, tokenHash),
        isNull(invitations.accepted_at),
        isNull(invitations.revoked_at),
      ),
    )
    .get();
  return open ? "last_owner" : "lost";
}
