/** Route middleware that authenticates the API key before any input validation runs. */
import type { Context, MiddlewareHandler } from "hono";
import { bearerRefusal } from "../../lib/bearer";
import { readEdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";
import { type IdentityRpc, rpc, type SiteProjection } from "../../lib/rpc";
import { bylineOf } from "../authors/personas";
import type { AppEnv } from "../core/bindings";
import { requestBookmark } from "../core/read-session";
import { enterSite } from "../core/routing";
import { admitAgent, agentCallOf } from "./agent";
import { authenticateKey, type KeyRequest, type KeyRequirement } from "./api-key";
import { keyContexts } from "./key-cache";
import type { KeyContext } from "./key-context";
import { authenticatePerson, type PersonDirectory, type PersonRequirement } from "./person";
import { authorizeKeyAdmin, siteNotFound, unknownStaffSite } from "./site-staff";

/** The client's address as the edge gives it (the gateway, or the platform's own `CF-Connecting-IP`). */
export function clientIp(c: Context<AppEnv>): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

/** Appends headers to the final response of this request (also to error responses). */
export function addResponseHeaders(c: Context<AppEnv>, headers: Record<string, string>) {
  const current = c.get("responseHeaders") ?? {};
  c.set("responseHeaders", { ...current, ...headers });
}

/** What key authentication and the write quota read of this request and add to its answer. */
export function keyRequest(c: Context<AppEnv>): KeyRequest {
  return {
    authorization: c.req.header("authorization"),
    queryKey: c.req.query("key"),
    origin: c.req.header("origin"),
    fetchMetadata: {
      site: c.req.header("sec-fetch-site"),
      mode: c.req.header("sec-fetch-mode"),
      dest: c.req.header("sec-fetch-dest"),
    },
    clientIp: clientIp(c),
    hasBookmark: requestBookmark(c) !== null,
    toSite: (siteId) => enterSite(c, siteId),
    addHeaders: (headers) => addResponseHeaders(c, headers),
  };
}

export function requireKey(
  requirement: KeyRequirement | ((c: Context<AppEnv>) => KeyRequirement),
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const required = typeof requirement === "function" ? requirement(c) : requirement;
    // An MCP agent's tool call, made in this isolate by the MCP route (keys/agent.ts): its KeyContext,
    // already authenticated there, is checked against this route's requirement; no header can claim one.
    const agent = agentCallOf(c.req.raw);
    const key = agent
      ? await admitAgentCall(c, required, agent)
      : await authenticateKey(c.env, keyRequest(c), required);
    c.set("auth", key);
    await next();
    // A write may have moved the site's content version: this isolate's next read of any key of the site
    // reads the key (and so the version) afresh, so it never answers from an older edge-cache entry.
    if (required.quota === "write") keyContexts.forgetSite(key.siteId);
  };
}

/** An MCP agent's tool call, run on the agent's site's group (in its MCP request's D1 session). */
async function admitAgentCall(c: Context<AppEnv>, required: KeyRequirement, agent: KeyContext) {
  const routed = await enterSite(c, agent.siteId);
  if (!routed) throw bearerRefusal("invalid");
  return admitAgent(routed.env, keyRequest(c), required, agent);
}

/**
 * OpenAPI security requirement naming the scopes (OpenAPI 3.1 allows role names for non-OAuth schemes). A
 * public key is accepted in `Authorization` (`publicReadKey`) or as `?key=` (`publicKeyQuery`).
 */
export function security(kinds: KeyRequirement["kinds"], scopes: string[]): Record<string, string[]>[] {
  const publicKey: Record<string, string[]>[] = [{ publicReadKey: scopes }, { publicKeyQuery: scopes }];
  if (kinds === "public") return publicKey;
  return kinds === "secret" ? [{ apiKey: scopes }] : [{ apiKey: scopes }, ...publicKey];
}

/** A route's documented security and its enforcing middleware from one requirement, so they cannot disagree. */
export function keyAuth(requirement: KeyRequirement) {
  return {
    security: security(requirement.kinds, requirement.scopes),
    middleware: [requireKey(requirement)],
  };
}

/**
 * The dashboard routes' authentication (`/api/v1/sites/{site_id}/…`, issue 34): the signed-in person of the
 * gateway's edge headers on the path's site, as a KeyContext with `actor.kind` "person" (keys/person.ts).
 */
export function requirePerson(requirement: PersonRequirement): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const siteId = parseId(c.req.param("site_id") ?? "");
    if (siteId === null) throw siteNotFound();
    const identity = readEdgeIdentity(c.req.raw.headers);
    const routed = await enterSite(c, siteId);
    if (!routed) throw unknownStaffSite(identity);
    const request = {
      identity,
      siteId,
      clientIp: clientIp(c),
      primaryDb: routed.primaryDb,
      addHeaders: (headers: Record<string, string>) => addResponseHeaders(c, headers),
      write: c.req.method !== "GET" && c.req.method !== "HEAD",
    };
    const person = await authenticatePerson(routed.env, request, requirement, personDirectory(routed.env));
    c.set("auth", person);
    await next();
    if (requirement.quota === "write") keyContexts.forgetSite(person.siteId);
  };
}

/** A dashboard route's documented security (the staff session's Bearer) and its enforcing middleware. */
export function personAuth(requirement: PersonRequirement) {
  return {
    security: [{ bearerAuth: [] }],
    middleware: [requirePerson(requirement)],
  };
}

/**
 * What the person middleware asks identity on a write: the grant with the display name
 * (`IdentityRpc.siteGrant`, a blank name as none).
 */
function personDirectory(env: AppEnv["Bindings"]): PersonDirectory {
  return {
    async siteGrant(query) {
      const grant = await rpc<IdentityRpc>(env.IDENTITY).siteGrant(query);
      return grant && { ...grant, display_name: bylineOf(grant.display_name) };
    },
  };
}

/**
 * The staff caller who may administer the `{site_id}` site's keys, webhooks and forms, and the site, with
 * the request routed to the site's group: 401 without a session; an id that is no id, a site content does
 * not know and one the caller may not administer are the same 404. Called by the handler (after the body's
 * validation, as before site groups).
 */
export async function authorizeSiteAdmin(
  c: Context<AppEnv>,
): Promise<{ userId: string; site: SiteProjection }> {
  const siteId = parseId(c.req.param("site_id") ?? "");
  if (!siteId) throw siteNotFound();
  const routed = await enterSite(c, siteId);
  if (!routed) throw unknownStaffSite(readEdgeIdentity(c.req.raw.headers));
  return authorizeKeyAdmin(c.req.raw.headers, routed.primaryDb, siteId);
}
