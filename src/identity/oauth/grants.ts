/**
 * The grants of MCP agents as their person and their site's administrators see and end them (issue 37,
 * docs/decisions/oauth-agents.md "Tokens"), and `revokeGrants`, the ends decided here and at the token
 * endpoint (the person, a site's member, the client's RFC 7009 revocation, a replayed code, a reused refresh
 * token). Its statements are the endings' own (endings.ts `grantEndStatements`, which the flows that end
 * grants put in their batches: a reset, a membership's end, a transfer): each end writes `revoked_at`,
 * `revoked_reason`, `revoked_by` and the person's `oauth_grant.revoked` event in one batch, the event
 * conditioned on the grant's compare-and-set.
 */
import { createLocalJWKSet, jwtVerify } from "jose";
import type { EdgeIdentity } from "../../lib/edge";
import { rpc, type SitesRpc } from "../../lib/rpc";
import { personSitePermissions } from "../../lib/site-permissions";
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import { edgeContextFor } from "../core/edge-context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { type EventOrigin, eventOrigin } from "../events/events";
import { jwks } from "../login/tokens";
import { siteOrg } from "../members/site-registry";
import { type FlowEndReason, grantEndStatements } from "./endings";
import { type GrantListRow, type GrantsWhere, grantById, liveGrants } from "./grants-store";
import { oauthHash, refreshTokenGrant } from "./refresh-tokens";
import { refreshTokenByHash } from "./tokens-store";

export type { GrantsWhere };

/** Why a grant ended (`revoked_reason`). */
export type GrantEndReason = FlowEndReason;

export interface GrantEnding {
  reason: GrantEndReason;
  /** Who ended it (a person's id), or null for the platform's own ends. */
  by?: string | null;
  /** The event's origin: the acting person's own request only; others' ends record none. */
  origin?: EventOrigin;
}

/**
 * The statements that end the live grants `where` names, for the caller's batch (one transaction): the
 * endings' own (endings.ts `grantEndStatements`: per grant its compare-and-set and its person's
 * `oauth_grant.revoked` event, then one catch-all for a grant created between this read and the batch).
 * `where`: `{ id }`, `{ user_id }`, `{ site_id }`, `{ user_id, site_id }`, `{ user_id, org_id }`.
 */
export function revokeGrants(
  db: D1Database,
  where: GrantsWhere,
  ending: GrantEnding,
): Promise<D1PreparedStatement[]> {
  return grantEndStatements(
    db,
    {
      ...("id" in where ? { id: where.id } : {}),
      ...("user_id" in where && where.user_id !== undefined ? { userId: where.user_id } : {}),
      ...("site_id" in where && where.site_id !== undefined ? { siteId: where.site_id } : {}),
      ...("org_id" in where ? { orgId: where.org_id } : {}),
    },
    { reason: ending.reason, by: ending.by ?? null, ...(ending.origin ? { origin: ending.origin } : {}) },
  );
}

/** Ends the grants `where` names now, with their events; the number of grants it ended. */
export async function endGrants(db: D1Database, where: GrantsWhere, ending: GrantEnding): Promise<number> {
  const statements = await revokeGrants(db, where, ending);
  const outcomes = await batch(db, statements);
  // Per grant: its compare-and-set, then its event; the catch-all last.
  return outcomes.filter((o, i) => i % 2 === 0 && i < outcomes.length - 1 && o.changes > 0).length;
}

/** A grant as its listings show it. */
export function grantView(row: GrantListRow) {
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: row.client_name,
    client_kind: row.client_kind,
    site_id: row.site_id,
    scopes: row.scope.split(" ").filter(Boolean),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

/**
 * The person's live grants, each with its site's name and host as the sites service has them now (one RPC for
 * the list; null for a site that is archived or deleted, where the agent is refused meanwhile).
 */
export async function personGrants(env: Pick<Env, "DB" | "SITES">, userId: string) {
  const rows = await liveGrants(env.DB, { user_id: userId });
  const siteIds = [...new Set(rows.map((row) => row.site_id))];
  const sites =
    siteIds.length > 0 ? await rpc<SitesRpc>(env.SITES).memberSites({ org_ids: [], site_ids: siteIds }) : [];
  const byId = new Map(sites.map((site) => [site.id, site]));
  return rows.map((row) => ({
    ...grantView(row),
    site_name: byId.get(row.site_id)?.name ?? null,
    site_host: byId.get(row.site_id)?.host ?? null,
  }));
}

const NO_GRANT = () => problem("NOT_FOUND", "No such grant.");

/** The person ends one of their grants (idempotent); another person's grant is 404 like a missing one. */
export async function revokePersonGrant(
  env: Pick<Env, "DB">,
  services: Pick<Services, "request">,
  userId: string,
  grantId: string,
): Promise<void> {
  const grant = await grantById(env.DB, grantId);
  if (!grant || grant.user_id !== userId) throw NO_GRANT();
  const origin = eventOrigin(services.request);
  await endGrants(env.DB, { id: grantId, user_id: userId }, { reason: "person", by: userId, origin });
}

/**
 * The caller may administer the site's integrations (`integrations` of the one permission model, over the
 * caller's memberships as the edge would carry them for this session, SSO rule included); anyone else,
 * and a site that does not exist or was deleted, gets the same 404.
 */
async function authorizeSiteIntegrations(
  env: Env,
  caller: { userId: string; sessionId: string },
  siteId: string,
): Promise<void> {
  const site = await siteOrg(env, siteId);
  if (!site || site.status === "deleted") fail("NOT_FOUND", "No such site.");
  const context = await edgeContextFor(env.DB, caller.userId, caller.sessionId);
  if (!context) fail("NOT_FOUND", "No such site.");
  const identity: EdgeIdentity = {
    userId: caller.userId,
    sessionId: caller.sessionId,
    orgMemberships: context.org_memberships,
    siteMemberships: context.site_memberships,
    operator: null,
    sessionKind: "staff",
    verified: true,
  };
  if (!personSitePermissions(identity, { id: siteId, org_id: site.org_id }).has("integrations")) {
    fail("NOT_FOUND", "No such site.");
  }
}

/** The site's live grants (every person's), for its members holding `integrations`. */
export async function siteGrants(env: Env, caller: { userId: string; sessionId: string }, siteId: string) {
  await authorizeSiteIntegrations(env, caller, siteId);
  const rows = await liveGrants(env.DB, { site_id: siteId });
  return rows.map((row) => ({ ...grantView(row), user_id: row.user_id }));
}

/** A member holding `integrations` ends one of the site's grants (idempotent); another site's is 404. */
export async function revokeSiteGrant(
  env: Env,
  caller: { userId: string; sessionId: string },
  siteId: string,
  grantId: string,
): Promise<void> {
  await authorizeSiteIntegrations(env, caller, siteId);
  const grant = await grantById(env.DB, grantId);
  if (!grant || grant.site_id !== siteId) throw NO_GRANT();
  await endGrants(env.DB, { id: grantId, site_id: siteId }, { reason: "site_member", by: caller.userId });
}

/** The grant a presented token belongs to: a refresh token by its stored hash, an access token by its `gid`. */
async function grantOfToken(env: Env, token: string): Promise<string | null> {
  if (refreshTokenGrant(token))
    return (await refreshTokenByHash(env.DB, await oauthHash(token)))?.grant_id ?? null;
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(await jwks(env)), {
      issuer: env.ISSUER,
      typ: "at+jwt",
      algorithms: ["EdDSA"],
    });
    return payload.kind === "agent" && typeof payload.gid === "string" ? payload.gid : null;
  } catch {
    return null;
  }
}

/**
 * RFC 7009 revocation by the authenticated client: a refresh token (or an access token, its signature
 * verified) of one of the client's grants ends that grant (`client`); an unknown token, or another
 * client's, changes nothing and is answered the same (§2.2).
 */
export async function revokeToken(
  env: Env,
  services: Pick<Services, "request">,
  clientId: string,
  token: string,
): Promise<void> {
  const grantId = await grantOfToken(env, token);
  const grant = grantId ? await grantById(env.DB, grantId) : null;
  if (!grant || grant.client_id !== clientId || grant.revoked_at !== null) return;
  const origin = eventOrigin(services.request);
  await endGrants(env.DB, { id: grant.id }, { reason: "client", by: null, origin });
}
