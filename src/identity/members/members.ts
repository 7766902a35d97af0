/** Membership rules shared by the organization, invitation, transfer and site member routes. */

import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { orgEvent } from "../events/events";
import { endGrantsNow } from "./grant-endings";
import type { ResolvedRole } from "./roles";
import { changeOrgRole, type MemberRow, type OrgMember, orgMembership, removeOrgMember } from "./store";

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
 * the last owner), then the end of what the old role let the person create (keys, webhooks: trust.md)
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
