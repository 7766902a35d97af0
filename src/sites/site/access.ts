/**
 * Who may see a site. Identity arrives only as edge headers (the gateway strips client copies), so the
 * rules here are plain functions over `EdgeIdentity`.
 */
import type { EdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";

/**
 * A caller the edge secret vouches for (`identity.verified`) that carries no edge header at all acts for
 * the platform: the gateway sets them on every user request it signs, so only a holder of the secret
 * sends a signed request without them. An unsigned request has lost its edge headers (`edgeTrust`) and is
 * anonymous, never a service caller.
 */
export function isServiceCaller(identity: EdgeIdentity): boolean {
  return (
    identity.verified &&
    identity.orgMemberships === null &&
    identity.siteMemberships === null &&
    identity.sessionKind === null &&
    identity.userId === null
  );
}

export function isReader(identity: EdgeIdentity): boolean {
  return identity.sessionKind === "reader";
}

function normalized(ids: (string | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    const parsed = id ? parseId(id) : null;
    if (parsed) out.add(parsed);
  }
  return out;
}

export function memberOrgIds(identity: EdgeIdentity): Set<string> {
  return normalized((identity.orgMemberships ?? []).map((m) => m.org_id));
}

/** POST /v1/sites: the body's org_id must be one of the caller's organizations (mass-assignment defense). */
export function mayCreateIn(identity: EdgeIdentity, orgId: string): boolean {
  if (isReader(identity)) return false;
  // "A service-to-service caller without the header passes": without the header AND without any other
  // edge header. A user's request always carries its memberships (the edge sets them), so a user
  // request lacking them fails closed rather than passing as a service.
  if (identity.orgMemberships === null) return isServiceCaller(identity);
  return memberOrgIds(identity).has(orgId);
}
