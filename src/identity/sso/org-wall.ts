/**
 * Enforced SSO on identity's own organization routes (the credential rule; docs/decisions/grant-endings.md). The edge
 * drops an enforcing organization from a session that did not sign in through its provider (sso/enforcement.ts),
 * but identity's member, invitation, transfer and event routes authorize from D1. This wall gives them the
 * edge's rule: such a session answers the route's non-member 404 there; an owner's break-glass (password and
 * a second factor) passes, recorded once and told to every owner as at the edge; an SSO session reaches only
 * its own organization. The SSO configuration routes stay open to owners (a broken provider is fixed there,
 * each change behind the step-up code). Identity's site member and invitation routes apply it with the site's
 * organization (`requireSsoReach`).
 */
import { parseUlid } from "../../lib/ids";
import { batch } from "../../lib/sql";
import type { AuthContext, Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { recordBreakGlass, type SsoFacts, ssoFacts, ssoOrgRule } from "./enforcement";
import { orgOwnerQuery, ssoFactQueries } from "./enforcement-store";

/** The organization routes the wall covers: `/api/v1/auth/orgs/{org_id}/(members|invitations|transfers|events)…`. */
const WALLED = /^\/api\/v1\/auth\/orgs\/([^/]+)\/(members|invitations|transfers|events)(\/|$)/;

/** The walled organization of a path and that route's answer to a stranger, or null for any other path. */
export function walledOrg(pathname: string): { orgId: string; notFound: string } | null {
  const walled = WALLED.exec(pathname);
  const orgId = parseUlid(walled?.[1] ?? "");
  if (!walled || !orgId) return null;
  return { orgId, notFound: NOT_MEMBER_DETAIL[walled[2]!] ?? "Not found." };
}

/** Whether the session may act in the organization, and the break-glass to record when it is one. */
async function sessionReachesOrg(env: Env, userId: string, sessionId: string, orgId: string) {
  const [session, enforced, owner] = await batch(env.DB, [
    ...ssoFactQueries(env.DB, userId, sessionId),
    orgOwnerQuery(env.DB, orgId, userId),
  ]);
  const facts: SsoFacts = ssoFacts(session, enforced);
  const isOwner = owner.rows.length > 0;
  const rule = ssoOrgRule(facts, (id) => id === orgId && isOwner);
  return { allowed: rule.allowed(orgId), facts, breakGlass: rule.breakGlass.includes(orgId) };
}

/** Each walled route's own answer to a non-member, so the wall says nothing more than it. */
const NOT_MEMBER_DETAIL: Record<string, string> = {
  members: "No such organization.",
  events: "No such organization.",
  invitations: "Not found.",
  transfers: "Not found.",
};

/**
 * The wall for a route that found the organization itself (identity's site member and site invitation
 * routes, from the site's owner): `notFound` is that route's own answer to a stranger.
 */
export async function requireSsoReach(
  env: Env,
  services: Pick<Services, "waitUntil">,
  { userId, sessionId }: AuthContext,
  orgId: string,
  notFound: string,
): Promise<void> {
  const reach = await sessionReachesOrg(env, userId, sessionId, orgId);
  if (!reach.allowed) fail("NOT_FOUND", notFound);
  if (reach.breakGlass) services.waitUntil(recordBreakGlass(env, reach.facts, userId, [orgId]));
}
