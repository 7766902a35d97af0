/**
 * An MCP agent on `/v1/mcp` (issue 37, docs/decisions/oauth-agents.md, "The resource"): its OAuth access
 * token (keys/agent-token.ts) acts as the person who approved the grant, on the grant's one site, with at
 * most the approved scopes, capped at every use by what the person's role allows now.
 *
 * Check order: the token's signature and claims (401 invalid_token; an expired one TOKEN_EXPIRED) -> the
 * grant as identity holds it (`IdentityRpc.agentAccess`: revoked, ended or not the token's -> 401) -> the
 * site and the person's permissions on it (a site that is gone, archived or no longer the grant's
 * organization's, or a person who holds nothing there any more: the same 401 as a revoked grant) -> the
 * requirement's scopes (403) -> the quota, in the gate of the pseudo key `agent:<grant id>` (the read and
 * write buckets a key has).
 *
 * Reads use this isolate's copy of identity's answer for at most `AGENT_ACCESS_TTL_MS`; a write (and a lead
 * read or an export) asks afresh, so a revoked grant stops writing at once and reading within 60 s.
 *
 * The agent's KeyContext is a person's (`actor.kind` "person"): posts record the person, the roles' rules
 * of posts/roles.ts apply, and the byline is the person's display name. Its `keyId` is `agent:<grant id>`
 * (quotas and idempotency per grant).
 *
 * Tool calls run as their `/v1` operations through this app (mcp/dispatch.ts). The token is never accepted
 * by those routes from outside (authenticateKey knows only ck_ and pk_ keys): the MCP route hands the
 * KeyContext it authenticated to its own in-process requests through `inProcessCalls`, a WeakMap of
 * Request objects that only code in this isolate can fill, which `requireKey` consults first.
 */
import { bearerRefusal } from "../../lib/bearer";
import type { EdgeIdentity } from "../../lib/edge";
import { ApiError } from "../../lib/problem";
import type { AgentAccess } from "../../lib/rpc";
import { scopesOfPermissions } from "../../lib/site-permissions";
import { bylineOf } from "../authors/personas";
import type { Env, WorkerEnv } from "../core/bindings";
import { clockNow } from "../core/clock";
import { fail } from "../errors";
import { type AgentClaims, verifyAgentToken } from "./agent-token";
import { type KeyRequest, type KeyRequirement, requireScopes, takeKeyQuota } from "./api-key";
import { type KeyContext, siteAddressOf } from "./key-context";
import { SCOPES, type Scope } from "./scopes";
import { staffAccess } from "./site-staff";

/** How long a read may use this isolate's copy of identity's answer about a grant (the revocation bound). */
export const AGENT_ACCESS_TTL_MS = 60_000;
/** Grants remembered per isolate (about 1 KiB each). */
export const AGENT_ACCESS_MAX_ENTRIES = 1_000;

interface Entry {
  access: AgentAccess | null;
  readAt: number;
}

/** Identity's answers about grants, each used for at most `ttlMs` after it was read (a small LRU). */
export class AgentAccessCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached answer (null: no such grant), or undefined when absent or too old (or "in the future"). */
  get(grantId: string, now: number): AgentAccess | null | undefined {
    const entry = this.entries.get(grantId);
    if (!entry) return undefined;
    this.entries.delete(grantId);
    if (now - entry.readAt >= this.ttlMs || now < entry.readAt) return undefined;
    this.entries.set(grantId, entry);
    return entry.access;
  }

  set(grantId: string, access: AgentAccess | null, now: number): void {
    this.entries.delete(grantId);
    this.entries.set(grantId, { access, readAt: now });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

/** This isolate's answers. */
export const agentAccesses = new AgentAccessCache(AGENT_ACCESS_TTL_MS, AGENT_ACCESS_MAX_ENTRIES);

/** What agent authentication asks identity (`IdentityRpc.agentAccess`). */
export interface AgentDirectory {
  agentAccess(input: { grant_id: string }): Promise<AgentAccess | null>;
}

/** The one refusal of a token that verified but whose grant, person or site no longer lets it act. */
function invalidToken(): ApiError {
  return bearerRefusal("invalid");
}

async function accessOf(
  directory: AgentDirectory,
  grantId: string,
  fresh: boolean,
): Promise<AgentAccess | null> {
  const now = clockNow();
  const cached = fresh ? undefined : agentAccesses.get(grantId, now);
  if (cached !== undefined) return cached;
  const access = await directory.agentAccess({ grant_id: grantId });
  // A fresh answer replaces the isolate's copy too: a revocation seen by a write stops this isolate's reads.
  agentAccesses.set(grantId, access, now);
  return access;
}

/** The grant's own: live, the token's person, client and site. */
function grantHolds(access: AgentAccess | null, claims: AgentClaims): access is AgentAccess {
  return (
    access?.active === true &&
    access.user_id === claims.userId &&
    access.client_id === claims.clientId &&
    access.site_id === claims.siteId
  );
}

const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPES);

/**
 * The agent of `token`, as a KeyContext (no requirement checked, no quota taken: `admitAgent`). `fresh`
 * asks identity afresh (writes, lead reads, exports); else a copy at most `AGENT_ACCESS_TTL_MS` old serves.
 */
export async function resolveAgent(
  env: WorkerEnv,
  request: Pick<KeyRequest, "toSite">,
  token: string,
  fresh: boolean,
  directory: AgentDirectory,
): Promise<KeyContext> {
  const claims = await verifyAgentToken(env.IDENTITY, env.TOKEN_ISSUER, token);
  if (claims === "expired") throw bearerRefusal("expired");
  if (!claims) throw invalidToken();
  const access = await accessOf(directory, claims.grantId, fresh);
  if (!grantHolds(access, claims)) throw invalidToken();
  // The person as identity holds them now (the SSO rule applied there): no edge headers, no session.
  const person: EdgeIdentity = {
    userId: access.user_id,
    sessionId: null,
    orgMemberships: access.org_memberships,
    siteMemberships: access.site_memberships,
    operator: null,
    sessionKind: "staff",
    verified: true,
  };
  // The grant's site routes the request to its group; a site content does not know is a missing one.
  const routed = await request.toSite(claims.siteId);
  if (!routed) throw invalidToken();
  let granted: Awaited<ReturnType<typeof staffAccess>>;
  try {
    granted = await staffAccess(person, routed.primaryDb, claims.siteId, async () => person);
  } catch (error) {
    // A missing, archived or transferred site, or nothing left on it: as a revoked grant (no site oracle).
    if (error instanceof ApiError && error.status === 404) throw invalidToken();
    throw error;
  }
  const { site, permissions } = granted;
  const role = scopesOfPermissions(permissions);
  const approved = new Set(access.scopes);
  const scopes = new Set(
    claims.scopes.filter((s): s is Scope => KNOWN_SCOPES.has(s) && approved.has(s) && role.has(s as Scope)),
  );
  return {
    actor: { kind: "person", userId: access.user_id, permissions },
    keyId: `agent:${access.grant_id}`,
    siteId: site.id,
    site: siteAddressOf(site),
    kind: "secret",
    scopes,
    createdBy: access.user_id,
    authorName: bylineOf(access.display_name),
    contentVersion: site.content_version,
  };
}

/**
 * The agent's KeyContext checked against a route's requirement, with its quota taken: refused where a
 * ck_ key is (a public-key-only operation 403), its scopes as a key's (403 INSUFFICIENT_SCOPE).
 */
export async function admitAgent(
  env: Env,
  request: Pick<KeyRequest, "clientIp" | "addHeaders">,
  requirement: KeyRequirement,
  key: KeyContext,
): Promise<KeyContext> {
  if (requirement.kinds === "public") {
    fail("PUBLIC_KEY_REQUIRED", "This operation takes the site's public (pk_) key.");
  }
  requireScopes(key.scopes, requirement.scopes);
  await takeKeyQuota(env, request, key.keyId, "secret", requirement);
  return key;
}

/**
 * Requests the MCP route sends through this app for its agent's tool calls, with the KeyContext they run
 * as. Only code of this isolate holds these Request objects: nothing a client sends can be one.
 */
const inProcessCalls = new WeakMap<Request, KeyContext>();

/** Marks `request` (about to go through `app.fetch`) as the agent's tool call. */
export function asAgentCall(request: Request, key: KeyContext): Request {
  inProcessCalls.set(request, key);
  return request;
}

/** The agent a request of this isolate runs as, when the MCP route made it. */
export function agentCallOf(request: Request): KeyContext | undefined {
  return inProcessCalls.get(request);
}
