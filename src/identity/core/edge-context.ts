/** The edge context the gateway attaches to a verified access token. */
import type { OrgMembership, SiteMembership } from "../../lib/edge";
import type { Computed } from "../../lib/rows";
import type { EdgeContext } from "../../lib/rpc";
import { batch, typed } from "../../lib/sql";
import { liveSessionStatement } from "../login/sessions-store";
import { type SsoFacts, ssoFacts, ssoOrgRule } from "../sso/enforcement";
import { ssoFactQueries } from "../sso/enforcement-store";
import {
  type OrgMembershipRow,
  operatorQuery,
  orgMembershipsQuery,
  type SiteMembershipRow,
  siteMembershipsQuery,
  userExistsQuery,
} from "./edge-context-store";

/** A membership as the edge describes it: the owner attribute is structural (never the role's name). */
export function asOrgMembership(r: OrgMembershipRow): OrgMembership {
  return {
    org_id: r.org_id,
    role: r.role,
    permissions: JSON.parse(r.permissions) as string[],
    ...(r.is_system === 1 ? { owner: true } : {}),
  };
}

/** A custom site role's permissions ride along by name (src/lib/site-permissions.ts reads them). */
export function asSiteMembership(r: SiteMembershipRow): SiteMembership {
  return {
    site_id: r.site_id,
    role: r.role,
    permissions: JSON.parse(r.permissions) as string[],
    ...(r.is_system === 1 ? { owner: true } : {}),
  };
}

/**
 * `onBreakGlass`: the organizations enforcing SSO that this session carries only as an owner's
 * break-glass (sso/enforcement.ts), for the caller to record and tell.
 */
export async function edgeContextFor(
  db: D1Database,
  userId: string,
  sessionId: string,
  onBreakGlass?: (facts: SsoFacts, orgIds: string[]) => void,
): Promise<EdgeContext | null> {
  const [user, live, orgs, sites, operator, ssoSession, ssoEnforced] = await batch(db, [
    userExistsQuery(db, userId),
    typed<Computed<{ ok: number }>>(liveSessionStatement(db, userId, sessionId)),
    orgMembershipsQuery(db, userId),
    siteMembershipsQuery(db, userId),
    operatorQuery(db, userId),
    ...ssoFactQueries(db, userId, sessionId),
  ]);
  if (user.rows.length === 0) return null;
  const orgRows = orgs.rows;
  const facts = ssoFacts(ssoSession, ssoEnforced);
  const rule = ssoOrgRule(facts, (orgId) => orgRows.some((r) => r.org_id === orgId && r.is_system === 1));
  if (rule.breakGlass.length > 0) onBreakGlass?.(facts, rule.breakGlass);
  const siteRows = sites.rows.filter((r) => rule.allowed(r.org_id));
  return {
    user_id: userId,
    session_active: live.rows.length > 0,
    session_kind: "staff",
    org_memberships: orgRows.filter((r) => rule.allowed(r.org_id)).map(asOrgMembership),
    site_memberships: siteRows.map(asSiteMembership),
    operator: operator.rows[0]?.capability ?? null,
  };
}
