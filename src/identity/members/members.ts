/** Membership rules shared by the organization, invitation, transfer and site member routes. */

import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { orgEvent } from "../events/events";
import { createInvitation } from "../invitations/invitations";
import { findVerifiedOwner } from "../signup/accounts-store";
import { endGrantsNow } from "./grant-endings";
import type { ResolvedRole } from "./roles";
import {
  addOrgMember,
  changeOrgRole,
  type MemberRow,
  type OrgMember,
  orgMembership,
  removeOrgMember,
} from "./store";

/**
 * Two rungs: a non-member gets an opaque 404 (the organization's existence is not revealed), a member
 * without the permission 403.
 */
export async function requireOrgMember(
  db: D1Database,
  orgId: string,
  userId: string,
  options: { permission?: string; notFoundDetail: string },
): Promise<OrgMember> {
  const me = await orgMembership(db, orgId, userId);
  if (!me) fail("NOT_FOUND", options.notFoundDetail);
  if (options.permission && !me.permissions.includes(options.permission)) {
    fail("FORBIDDEN", `Requires ${options.permission}.`);
  }
  return me;
}

export function requireOwnerToGrant(me: OrgMember, role: ResolvedRole): void {
  if (role.isSystem && !me.isOwner) fail("OWNER_ONLY", "Only an owner grants the owner role.");
}

export function protectOwner(me: OrgMember, target: OrgMember, detail: string): void {
  if (target.isOwner && !me.isOwner) fail("OWNER_PROTECTED", { detail });
}

const LAST_OWNER = () => problem("LAST_ORG_OWNER", "The organization must keep an owner.");

/** An organization event about one member, written only if the membership write changed a row. */
export function orgMemberEvent(
  db: D1Database,
  orgId: string,
  type: "member_added" | "member_removed" | "role_changed",
  change: { actorUserId: string; userId: string; role?: string },
) {
  const fields = { actorUserId: change.actorUserId, target: change.userId, detail: change.role ?? null };
  return orgEvent(db, orgId, type, fields, { ifChanged: true });
}

/**
 * A member's new role in the organization: owner rules first, then the change (the store refuses to demote
 * the last owner), then the end of what the old role let the person create (keys, webhooks: grant-endings.md)
 * before the answer.
 */
export async function changeOrgMemberRole(
  env: Env,
  services: Services,
  orgId: string,
  change: { actorUserId: string; me: OrgMember; userId: string; target: OrgMember; role: ResolvedRole },
) {
  const { me, target, role, userId } = change;
  protectOwner(me, target, "Only an owner changes another owner.");
  const event = orgMemberEvent(env.DB, orgId, "role_changed", {
    actorUserId: change.actorUserId,
    userId,
    role: role.slug,
  });
  if (!(await changeOrgRole(env.DB, orgId, userId, role.slug, role.isSystem, event))) {
    throw LAST_OWNER();
  }
  await endGrantsNow(env, services, userId);
}

/**
 * `POST …/members`: an account with the address becomes a member (201), an existing member gets the role
 * (200, the role change's rules), and an address without an account is invited when invitations are on
 * (202), else 404 USER_NOT_FOUND. The role was resolved and the grant allowed by the caller.
 */
export async function grantOrgMembership(
  env: Env,
  services: Services,
  orgId: string,
  grant: { actorUserId: string; me: OrgMember; address: string; role: ResolvedRole },
) {
  const { actorUserId, me, address, role } = grant;
  const target = await findVerifiedOwner(env.DB, address, { includeCoolingOff: true });
  if (!target) {
    if (env.INVITES_ENABLED !== "true") fail("USER_NOT_FOUND", "No account with that address.");
    const invitation = await createInvitation(env, services, actorUserId, {
      orgId,
      siteId: null,
      email: address,
      role: role.slug,
    });
    return { status: 202 as const, body: { invitation_id: invitation.id, email_sent: invitation.emailSent } };
  }
  const userId = target.user_id;
  const existing = await orgMembership(env.DB, orgId, userId);
  const member = { user_id: userId, email: address, role: role.slug, is_owner: role.isSystem };
  if (!existing) {
    const event = orgMemberEvent(env.DB, orgId, "member_added", { actorUserId, userId, role: role.slug });
    await addOrgMember(env.DB, orgId, userId, role.slug, event);
    return { status: 201 as const, body: member };
  }
  await changeOrgMemberRole(env, services, orgId, { actorUserId, me, userId, target: existing, role });
  return { status: 200 as const, body: member };
}

/**
 * A member's removal from the organization: owner rules first (the store refuses to remove the last
 * owner), then the end of what the membership let the person create, before the answer.
 */
export async function removeOrgMemberAndGrants(
  env: Env,
  services: Services,
  orgId: string,
  change: { actorUserId: string; me: OrgMember; userId: string; target: OrgMember },
) {
  protectOwner(change.me, change.target, "Only an owner removes an owner.");
  const event = orgMemberEvent(env.DB, orgId, "member_removed", change);
  if (!(await removeOrgMember(env.DB, orgId, change.userId, event))) throw LAST_OWNER();
  await endGrantsNow(env, services, change.userId);
}

/** Never a list with anonymous rows: a member without a resolvable address fails the whole answer. */
export function memberItems(rows: MemberRow[]) {
  if (rows.some((r) => !r.address)) {
    fail("LOOKUP_FAILED", "A member's e-mail could not be resolved.");
  }
  return rows.map((r) => ({
    user_id: r.user_id,
    email: r.address ?? "",
    role: r.role,
    is_owner: r.is_owner === 1,
    joined_at: r.created_at,
  }));
}
