/** Membership rules shared by the organization, invitation, transfer and site member routes. */

import { fail } from "../errors";
import type { ResolvedRole } from "./roles";
import { type MemberRow, type OrgMember, orgMembership } from "./store";

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
