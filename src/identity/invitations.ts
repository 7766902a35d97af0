/** Invitations: creation, e-mailing, token rotation and acceptance (rules shared by org and site routes). */
import { newId } from "../lib/ids";
import type { AppContext } from "./context";
import { isoIn, nowIso, randomToken, sha256Hex } from "./crypto";

export const INVITATION_TTL_S = 7 * 24 * 3600;

export interface InvitationRow {
  id: string;
  org_id: string;
  site_id: string | null;
  scope: "org" | "site";
  email: string;
  role: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

export const INVITATION_COLUMNS =
  "id, org_id, site_id, scope, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at";

export function invitationView(r: InvitationRow) {
  return {
    id: r.id,
    scope: r.scope,
    org_id: r.org_id,
    site_id: r.site_id,
    email: r.email,
    role: r.role,
    created_at: r.created_at,
    expires_at: r.expires_at,
  };
}

function acceptLink(c: AppContext, token: string) {
  return `${c.env.ISSUER}/invitations/accept?token=${token}`;
}

/** E-mails the link; false when only sending failed (the invitation exists; resend, do not duplicate). */
export async function mailInvitation(c: AppContext, email: string, token: string): Promise<boolean> {
  try {
    await c.get("services").mailer.send({
      to: email,
      purpose: "invitation",
      subject: "You are invited",
      body: `Accept the invitation within 7 days: ${acceptLink(c, token)}`,
      link: acceptLink(c, token),
    });
    return true;
  } catch (err) {
    console.error(
      JSON.stringify({ level: "error", event: "invitation_mail_failed", error: (err as Error).message }),
    );
    return false;
  }
}

export async function createInvitation(
  c: AppContext,
  input: { orgId: string; siteId: string | null; email: string; role: string },
) {
  const token = randomToken(32);
  const id = newId();
  await c.env.DB.prepare(
    `INSERT INTO invitations (id, org_id, site_id, scope, email, role, token_hash, invited_by, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      input.orgId,
      input.siteId,
      input.siteId ? "site" : "org",
      input.email,
      input.role,
      await sha256Hex(token),
      c.get("auth").userId,
      nowIso(),
      isoIn(INVITATION_TTL_S),
    )
    .run();
  return { id, emailSent: await mailInvitation(c, input.email, token) };
}

/**
 * Rotates the token and restarts the expiry in one UPDATE (the old link dies with it; an expired
 * invitation revives). Returns "accepted" for an accepted invitation, null when none matched.
 */
export async function rotateInvitation(c: AppContext, id: string, where: string, args: string[]) {
  const token = randomToken(32);
  const row = await c.env.DB.prepare(
    `UPDATE invitations SET token_hash = ?, expires_at = ?
     WHERE id = ? AND revoked_at IS NULL AND accepted_at IS NULL ${where}
     RETURNING ${INVITATION_COLUMNS}`,
  )
    .bind(await sha256Hex(token), isoIn(INVITATION_TTL_S), id, ...args)
    .first<InvitationRow>();
  if (row) return { row, token };
  const accepted = await c.env.DB.prepare(
    `SELECT 1 AS ok FROM invitations WHERE id = ? AND revoked_at IS NULL AND accepted_at IS NOT NULL ${where}`,
  )
    .bind(id, ...args)
    .first();
  return accepted ? ("accepted" as const) : null;
}
