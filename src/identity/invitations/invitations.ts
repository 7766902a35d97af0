/** Invitations: creation, e-mailing, revocation and resending (rules shared by org and site routes). */
import { newId, parseUlid } from "../../lib/ids";
import { rpc, type SitesRpc } from "../../lib/rpc";
import type { Services } from "../core/context";
import { isoIn, randomToken, sha256Hex } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { orgEvent } from "../events/events";
import { enforceRateLimit } from "../login/guards";
import { endGrantsNow } from "../members/grant-endings";
import { siteOrg } from "../members/site-registry";
import { invitationContext } from "../messaging/locale-store";
import { findVerifiedOwner } from "../signup/accounts-store";
import { hashPassword } from "../signup/password";
import { enforcePasswordPolicy } from "../signup/password-policy";
import {
  acceptInvitation,
  findLiveInvitationByToken,
  type InvitationOwner,
  type InvitationRow,
  insertInvitation,
  invitationEmail,
  listPendingInvitations,
  replaceInvitationToken,
  revokePendingInvitation,
} from "./store";

export const INVITATION_TTL_S = 7 * 24 * 3600;

export function invitesEnabled(env: Env): boolean {
  return env.INVITES_ENABLED === "true";
}

export function requireInvitesEnabled(env: Env): void {
  if (!invitesEnabled(env)) fail("INVITES_DISABLED", "Invitations are disabled.");
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

function acceptLink(env: Env, token: string) {
  return `${env.ISSUER}/auth/invitations/accept?token=${token}`;
}

/** Who invites whom, where and as what: what the invitation mail says. */
interface InvitationMail {
  email: string;
  orgId: string;
  siteId: string | null;
  role: string;
  invitedBy: string;
}

/** The site's name for the mail; absent when sites cannot say (the mail still goes, naming the organization). */
async function siteName(env: Env, services: Services, siteId: string): Promise<string | undefined> {
  try {
    return (await rpc<SitesRpc>(env.SITES).siteNames([siteId]))[0]?.name;
  } catch (err) {
    services.log.warn("invitation_site_name_failed", { error: (err as Error).message });
    return undefined;
  }
}

/**
 * E-mails the link, in the invitee's language when the address has an account, else the inviter's;
 * false when only sending failed (the invitation exists; resend, do not duplicate).
 */
async function mailInvitation(
  env: Env,
  services: Services,
  mail: InvitationMail,
  token: string,
): Promise<boolean> {
  try {
    const [context, site] = await Promise.all([
      invitationContext(env.DB, mail.orgId, mail.invitedBy),
      mail.siteId ? siteName(env, services, mail.siteId) : Promise.resolve(undefined),
    ]);
    await services.mailer.send({
      to: mail.email,
      purpose: "invitation",
      vars: {
        org: context.org,
        role: mail.role,
        ...(site ? { site } : {}),
        ...(context.inviter ? { inviter: context.inviter } : {}),
      },
      link: acceptLink(env, token),
      locale: context.locale,
    });
    return true;
  } catch (err) {
    services.log.error("invitation_mail_failed", { error: (err as Error).message });
    return false;
  }
}

export async function createInvitation(
  env: Env,
  services: Services,
  invitedBy: string,
  input: { orgId: string; siteId: string | null; email: string; role: string },
) {
  const token = randomToken(32);
  const id = newId();
  const detail = `${input.email} as ${input.role}${input.siteId ? ` on site ${input.siteId}` : ""}`;
  const event = orgEvent(env.DB, input.orgId, "invitation_sent", {
    actorUserId: invitedBy,
    target: id,
    detail,
  });
  await insertInvitation(
    env.DB,
    { id, ...input, tokenHash: await sha256Hex(token), invitedBy, expiresAt: isoIn(INVITATION_TTL_S) },
    event,
  );
  return { id, emailSent: await mailInvitation(env, services, { ...input, invitedBy }, token) };
}

/** 404 for a malformed id, another owner's id and an invitation that is not pending alike. */
export async function revokeInvitation(
  env: Env,
  actorUserId: string,
  rawId: string,
  owner: InvitationOwner,
  orgId: string,
) {
  const id = parseUlid(rawId);
  const fields = { actorUserId, target: id };
  const event = orgEvent(env.DB, orgId, "invitation_revoked", fields, { ifChanged: true });
  if (!id || !(await revokePendingInvitation(env.DB, id, owner, event))) {
    fail("NOT_FOUND", "No pending invitation.");
  }
}

/**
 * Rotates the token (the old link dies), restarts the 7-day expiry and e-mails the new link. Rate limits
 * count per client and per invited mailbox, so resending cannot be used to flood an inbox.
 */
export async function resendInvitation(env: Env, services: Services, rawId: string, owner: InvitationOwner) {
  const notFound = () => problem("NOT_FOUND", "No such invitation.");
  const id = parseUlid(rawId);
  const email = id ? await invitationEmail(env.DB, id, owner) : null;
  if (!id || !email) throw notFound();
  await enforceRateLimit(env, "invite_resend_ip", services.request.ip);
  await enforceRateLimit(env, "invite_resend_mailbox", email);
  const token = randomToken(32);
  const rotated = await replaceInvitationToken(
    env.DB,
    id,
    owner,
    await sha256Hex(token),
    isoIn(INVITATION_TTL_S),
  );
  if (rotated === "accepted") {
    fail("INVITATION_ALREADY_ACCEPTED", "The invitation was already accepted.");
  }
  if (!rotated) throw notFound();
  return {
    email_sent: await mailInvitation(
      env,
      services,
      {
        email: rotated.email,
        orgId: rotated.org_id,
        siteId: rotated.site_id,
        role: rotated.role,
        invitedBy: rotated.invited_by,
      },
      token,
    ),
    expires_at: rotated.expires_at,
  };
}

/**
 * A site invitation binds only while the organization that issued it owns the site (the registry's
 * current answer): after a transfer the origin has no say. A transfer's acceptance revokes the site's
 * invitations; this also stops one issued while that acceptance was being applied. Always true for an
 * organization invitation.
 */
async function issuerOwnsSite(env: Env, invitation: InvitationRow): Promise<boolean> {
  if (invitation.scope !== "site" || !invitation.site_id) return true;
  return (await siteOrg(env, invitation.site_id))?.org_id === invitation.org_id;
}

/**
 * Redeems an invitation token: the invited address's account joins with the invited role (an existing
 * member's role changes, under the owner rules of PATCH: 409 when it would demote the last owner). An
 * address without an account gets one, with `password` (required, and held to the password policy).
 * Unknown, used, revoked and expired tokens are one 404. Returns the membership and, for a new account, its id
 * (the caller signs it in).
 */
export async function redeemInvitation(
  env: Env,
  services: Services,
  input: { token: string; password?: string },
) {
  const tokenHash = await sha256Hex(input.token);
  const notFound = () => problem("NOT_FOUND", "The invitation is unknown, used or expired.");
  const invitation = await findLiveInvitationByToken(env.DB, tokenHash);
  if (!invitation || !(await issuerOwnsSite(env, invitation))) throw notFound();
  const owner = await findVerifiedOwner(env.DB, invitation.email, { includeCoolingOff: true });
  let newAccount: { passwordHash: string } | null = null;
  if (!owner) {
    if (!input.password) fail("BAD_REQUEST", "password is required for a new account.");
    await enforcePasswordPolicy(env, services, input.password);
    newAccount = { passwordHash: await hashPassword(input.password) };
  }
  const userId = owner?.user_id ?? newId();
  const fields = { actorUserId: userId, target: invitation.id, detail: invitation.role };
  const event = orgEvent(env.DB, invitation.org_id, "invitation_accepted", fields, { ifChanged: true });
  const outcome = await acceptInvitation(env.DB, invitation, tokenHash, userId, newAccount, event);
  if (outcome === "last_owner") {
    if (invitation.scope === "site") fail("LAST_SITE_OWNER", "The site must keep an owner.");
    fail("LAST_ORG_OWNER", "The organization must keep an owner.");
  }
  if (outcome !== "accepted") throw notFound();
  // Accepted over an existing membership, the invitation's role may carry less than the one it replaced:
  // what the old role let the person create ends now, as after a demotion by a member route.
  if (owner) await endGrantsNow(env, services, userId);
  const membership = {
    org_id: invitation.org_id,
    site_id: invitation.site_id,
    role: invitation.role,
    scope: invitation.scope,
  };
  return { membership, newUserId: owner ? null : userId };
}
