/** Invitations: creation, e-mailing, revocation and resending (rules shared by org and site routes). */
import { newId, parseUlid } from "../lib/ids";
import { ApiError } from "../lib/problem";
import type { AppContext } from "./context";
import { clientIp } from "./context";
import { isoIn, randomToken, sha256Hex } from "./crypto";
import { enforceRateLimit } from "./guards";
import {
  type InvitationOwner,
  type InvitationRow,
  insertInvitation,
  invitationEmail,
  listPendingInvitations,
  replaceInvitationToken,
  revokePendingInvitation,
} from "./store/invitations";
import type { Env } from "./worker-env";

export const INVITATION_TTL_S = 7 * 24 * 3600;

export function invitesEnabled(env: Env): boolean {
  return env.INVITES_ENABLED === "true";
}

export function requireInvitesEnabled(env: Env): void {
  if (!invitesEnabled(env))
    throw new ApiError(501, "INVITES_DISABLED", { detail: "Invitations are disabled." });
}

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

export async function pendingInvitationViews(db: D1Database, owner: InvitationOwner) {
  return (await listPendingInvitations(db, owner)).map(invitationView);
}

function acceptLink(c: AppContext, token: string) {
  return `${c.env.ISSUER}/invitations/accept?token=${token}`;
}

/** E-mails the link; false when only sending failed (the invitation exists; resend, do not duplicate). */
async function mailInvitation(c: AppContext, email: string, token: string): Promise<boolean> {
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
    c.get("log").error("invitation_mail_failed", { error: (err as Error).message });
    return false;
  }
}

export async function createInvitation(
  c: AppContext,
  input: { orgId: string; siteId: string | null; email: string; role: string },
) {
  const token = randomToken(32);
  const id = newId();
  await insertInvitation(c.env.DB, {
    id,
    ...input,
    tokenHash: await sha256Hex(token),
    invitedBy: c.get("auth").userId,
    expiresAt: isoIn(INVITATION_TTL_S),
  });
  return { id, emailSent: await mailInvitation(c, input.email, token) };
}

/** 404 for a malformed id, another owner's id and an invitation that is not pending alike. */
export async function revokeInvitation(c: AppContext, rawId: string, owner: InvitationOwner) {
  const id = parseUlid(rawId);
  if (!id || !(await revokePendingInvitation(c.env.DB, id, owner))) {
    throw new ApiError(404, "NOT_FOUND", { detail: "No pending invitation." });
  }
}

/**
 * Rotates the token (the old link dies), restarts the 7-day expiry and e-mails the new link. Rate limits
 * count per client and per invited mailbox, so resending cannot be used to flood an inbox.
 */
export async function resendInvitation(c: AppContext, rawId: string, owner: InvitationOwner) {
  const notFound = () => new ApiError(404, "NOT_FOUND", { detail: "No such invitation." });
  const id = parseUlid(rawId);
  const email = id ? await invitationEmail(c.env.DB, id, owner) : null;
  if (!id || !email) throw notFound();
  await enforceRateLimit(c.env, "invite_resend_ip", clientIp(c));
  await enforceRateLimit(c.env, "invite_resend_mailbox", email);
  const token = randomToken(32);
  const rotated = await replaceInvitationToken(
    c.env.DB,
    id,
    owner,
    await sha256Hex(token),
    isoIn(INVITATION_TTL_S),
  );
  if (rotated === "accepted") {
    throw new ApiError(409, "INVITATION_ALREADY_ACCEPTED", {
      detail: "The invitation was already accepted.",
    });
  }
  if (!rotated) throw notFound();
  return {
    email_sent: await mailInvitation(c, rotated.email, token),
    expires_at: rotated.expires_at,
  };
}
