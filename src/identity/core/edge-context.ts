/** The edge context the gateway attaches to a verified access token. */
import type { OperatorCapability, OrgMembership, SiteMembership } from "../../lib/edge";
import type { EdgeContext } from "../../lib/rpc";
import { liveSessionStatement } from "../login/sessions-store";
import { ownerRoleSql } from "../members/store";
import { type SsoFacts, ssoFactStatements, ssoFacts, ssoOrgRule } from "../sso/enforcement";

/** An organization membership with its role's permissions, as `orgMembershipsStatement` reads it. */
export interface OrgMembershipRow {
  org_id: string;
  role: string;
  permissions: string;
  is_system: number;
}

/** A site membership with its organization and whether its role is the site's owner role. */
export interface SiteMembershipRow {
  site_id: string;
  role: string;
  org_id: string | null;
  is_system: number;
}

/** The person's organization memberships, oldest first: every one, or those of `orgId` (none when null). */
export function orgMembershipsStatement(
  db: D1Database,
  userId: string,
  orgId?: string | null,
): D1PreparedStatement {
  return db
    .prepare(
      `SELECT m.org_id, m.role, COALESCE(r.permissions, '[]') AS permissions, COALESCE(r.is_system, 0) AS is_system
       FROM org_memberships m
       LEFT JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
       WHERE m.user_id = ?1 AND (?3 = 1 OR m.org_id = ?2) ORDER BY m.created_at`,
    )
    .bind(userId, orgId ?? null, orgId === undefined ? 1 : 0);
}

/** The person's site memberships, oldest first: every one (`siteId` null), or that site's. */
export function siteMembershipsStatement(
  db: D1Database,
  userId: string,
  siteId: string | null = null,
): D1PreparedStatement {
  return db
    .prepare(
      `SELECT m.site_id, m.role, m.org_id, ${ownerRoleSql("site", "m")} AS is_system
       FROM site_memberships m WHERE m.user_id = ?1 AND (?2 IS NULL OR m.site_id = ?2) ORDER BY m.created_at`,
    )
    .bind(userId, siteId);
}

/** A membership as the edge describes it: the owner attribute is structural (never the role's name). */
export function asOrgMembership(r: OrgMembershipRow): OrgMembership {
  return {
    org_id: r.org_id,
    role: r.role,
    permissions: JSON.parse(r.permissions) as string[],
    ...(r.is_system === 1 ? { owner: true } : {}),
  };
}

export function asSiteMembership(r: SiteMembershipRow): SiteMembership {
  return { site_id: r.site_id, role: r.role, ...(r.is_system === 1 ? { owner: true } : {}) };
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
  const [user, live, orgs, sites, operator, ssoSession, ssoEnforced] = await db.batch([
    db.prepare("SELECT id FROM users WHERE id = ?").bind(userId),
    liveSessionStatement(db, userId, sessionId),
    orgMembershipsStatement(db, userId),
    siteMembershipsStatement(db, userId),
    db.prepare("SELECT capability FROM platform_operators WHERE user_id = ?").bind(userId),
    ...ssoFactStatements(db, userId, sessionId),
  ]);
  if (!user || user.results.length === 0) return null;
  const orgRows = (orgs?.results ?? []) as OrgMembershipRow[];
  const facts = ssoFacts(ssoSession, ssoEnforced);
  const rule = ssoOrgRule(facts, (orgId) => orgRows.some((r) => r.org_id === orgId && r.is_system === 1));
  if (rule.breakGlass.length > 0) onBreakGlass?.(facts, rule.breakGlass);
  const siteRows = ((sites?.results ?? []) as SiteMembershipRow[]).filter((r) => rule.allowed(r.org_id));
  return {
    user_id: userId,
    session_active: (live?.results.length ?? 0) > 0,
    session_kind: "staff",
    org_memberships: orgRows.filter((r) => rule.allowed(r.org_id)).map(asOrgMembership),
    site_memberships: siteRows.map(asSiteMembership),
    operator: (operator?.results[0] as { capability?: OperatorCapability } | undefined)?.capability ?? null,
  };
}
