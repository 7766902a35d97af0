/**
 * An MCP agent's grants end with the membership that allowed them (issue 37, docs/decisions/oauth-agents.md
 * "Endings"): for a membership's end or role change (a `member_grant_endings` row, written by migration
 * 0009's triggers in the change's own statement and delivered by members/grant-endings.ts), each grant of
 * the person there, approved up to the change, whose scopes the person's memberships no longer cover in
 * full. A grant is never narrowed in place. Apart from endings.ts so the SSO modules that import endings.ts
 * do not reach the edge context through the memberships read here.
 */
import type { EdgeIdentity } from "../../lib/edge";
import { personSitePermissions, scopesOfPermissions } from "../../lib/site-permissions";
import { nowIso } from "../core/crypto";
import { membershipsIn } from "../members/grant-endings-store";
import { endOne, type LiveGrant } from "./endings";
import { type GrantScope, liveGrantsIn } from "./endings-store";

/** The key scopes the person's memberships allow on the grant's site now. */
async function scopesNow(db: D1Database, grant: LiveGrant): Promise<Set<string>> {
  const { orgs, sites } = await membershipsIn(db, grant.user_id, grant.org_id, grant.site_id);
  const identity: EdgeIdentity = {
    userId: grant.user_id,
    sessionId: null,
    orgMemberships: orgs,
    siteMemberships: sites,
    operator: null,
    sessionKind: "staff",
    verified: true,
  };
  const permissions = personSitePermissions(identity, { id: grant.site_id, org_id: grant.org_id });
  return new Set<string>(scopesOfPermissions(permissions));
}

/**
 * A membership's end or role change (a `member_grant_endings` row: the person, the organization, the site
 * when it was a site membership, the instant): the statements ending each grant of the person there,
 * approved up to the change, whose scopes the person's memberships no longer cover in full. What still
 * covers it (another membership, a promotion) keeps it.
 */
export async function membershipGrantEndStatements(
  db: D1Database,
  change: { user_id: string; org_id: string | null; site_id: string | null; ended_at: string },
): Promise<D1PreparedStatement[]> {
  const where: GrantScope | null =
    change.site_id !== null
      ? { userId: change.user_id, siteId: change.site_id }
      : change.org_id !== null
        ? { userId: change.user_id, orgId: change.org_id }
        : null;
  if (!where) return [];
  const grants = await liveGrantsIn(db, { ...where, createdUpTo: change.ended_at });
  const at = nowIso();
  const statements: D1PreparedStatement[] = [];
  for (const grant of grants) {
    const allowed = await scopesNow(db, grant);
    const approved = grant.scope.split(" ").filter(Boolean);
    if (approved.every((scope) => allowed.has(scope))) continue;
    const reason = allowed.size === 0 ? "membership_ended" : "role_changed";
    statements.push(...endOne(db, grant, { reason, by: null, at }, { reason }));
  }
  return statements;
}
