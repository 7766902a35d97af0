/**
 * `IdentityRpc.agentAccess` (issue 37): what content decides an agent's request by, after it verified the
 * access token's signature itself: whether the grant still lives, and the person's memberships of the site's
 * organization and of the site now, so a revoked grant, a removed member or a demotion takes effect at
 * content (reads cache this answer at most 60 s, writes ask afresh; docs/decisions/oauth-agents.md).
 *
 * `active` needs the grant unrevoked and its account `active`: a locked or disabled account's agents stop with
 * it, as its sessions do.
 *
 * The memberships are read under the SSO rule with no session: an organization that enforces SSO shows no
 * membership to a grant (an agent holds no SSO session), so turning enforcement on ends what agents may do
 * there, as it ends password sessions.
 */
import { parseId } from "../../lib/ids";
import type { AgentAccess } from "../../lib/rpc";
import { displayNameOf } from "../account/me-store";
import { edgeContextFor } from "../core/edge-context";
import { issuingGrant } from "./tokens-store";

export async function agentAccessOf(
  db: D1Database,
  input: { grant_id: string },
): Promise<AgentAccess | null> {
  const grantId = typeof input?.grant_id === "string" ? parseId(input.grant_id) : null;
  if (!grantId) return null;
  const grant = await issuingGrant(db, grantId);
  if (!grant) return null;
  const [context, displayName] = await Promise.all([
    edgeContextFor(db, grant.user_id, ""),
    displayNameOf(db, grant.user_id),
  ]);
  const active = grant.revoked_at === null && grant.user_status === "active" && context !== null;
  return {
    grant_id: grant.id,
    active,
    user_id: grant.user_id,
    client_id: grant.client_id,
    site_id: grant.site_id,
    scopes: grant.scope.split(" ").filter(Boolean),
    org_memberships: (context?.org_memberships ?? []).filter((m) => parseId(m.org_id) === grant.org_id),
    site_memberships: (context?.site_memberships ?? []).filter((m) => parseId(m.site_id) === grant.site_id),
    display_name: displayName,
  };
}
