/** The edge context the gateway attaches to a verified access token. */
import type { OperatorCapability } from "../../lib/edge";
import type { EdgeContext } from "../../lib/rpc";
import { liveSessionStatement } from "../login/sessions-store";
import { type SsoFacts, ssoFactStatements, ssoFacts, ssoOrgRule } from "../sso/enforcement";

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
    db
      .prepare(
        `SELECT m.org_id, m.role, COALESCE(r.permissions, '[]') AS permissions, COALESCE(r.is_system, 0) AS is_system
         FROM org_memberships m
         LEFT JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
         WHERE m.user_id = ? ORDER BY m.created_at`,
      )
      .bind(userId),
    db
      .prepare(
        `SELECT m.site_id, m.role, m.org_id, EXISTS (SELECT 1 FROM roles r WHERE r.scope = 'site' AND r.is_system = 1
           AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)) AS is_system
         FROM site_memberships m WHERE m.user_id = ? ORDER BY m.created_at`,
      )
      .bind(userId),
    db.prepare("SELECT capability FROM platform_operators WHERE user_id = ?").bind(userId),
    ...ssoFactStatements(db, userId, sessionId),
  ]);
  if (!user || user.results.length === 0) return null;
  const orgRows = (orgs?.results ?? []) as {
    org_id: string;
    role: string;
    permissions: string;
    is_system: number;
  }[];
  const facts = ssoFacts(ssoSession, ssoEnforced);
  const rule = ssoOrgRule(facts, (orgId) => orgRows.some((r) => r.org_id === orgId && r.is_system === 1));
  if (rule.breakGlass.length > 0) onBreakGlass?.(facts, rule.breakGlass);
  const siteRows = (
    (sites?.results ?? []) as { site_id: string; role: string; org_id: string | null; is_system: number }[]
  ).filter((r) => rule.allowed(r.org_id));
  return {
    user_id: userId,
    session_active: (live?.results.length ?? 0) > 0,
    session_kind: "staff",
    org_memberships: orgRows
      .filter((r) => rule.allowed(r.org_id))
      .map((r) => ({
        org_id: r.org_id,
        role: r.role,
        permissions: JSON.parse(r.permissions) as string[],
        // The structural owner attribute: what services recognise an owner by (never the role's name).
        ...(r.is_system === 1 ? { owner: true } : {}),
      })),
    site_memberships: siteRows.map((r) => ({
      site_id: r.site_id,
      role: r.role,
      ...(r.is_system === 1 ? { owner: true } : {}),
    })),
    operator: (operator?.results[0] as { capability?: OperatorCapability } | undefined)?.capability ?? null,
  };
}
