/**
 * An MCP agent's access token (issue 37, docs/decisions/oauth-agents.md): an EdDSA JWT identity signs with
 * the keys of its JWKS, verified here against that JWKS. The key set comes from identity over the
 * `IDENTITY` service binding and is cached in the isolate 5 minutes; the verification is the gateway's
 * (src/lib/identity-jwt.ts: an unknown `kid` refreshes it at once, at most every 30 s).
 *
 * Pinned (RFC 8725 §3.1, §3.11; RFC 9068 §4): `alg` EdDSA with a `kid`, `typ` at+jwt, `iss` identity's
 * issuer, `aud` exactly this resource, `kind` "agent", and every claim the grant is decided by. A staff
 * access token (`typ` JWT, `aud` site-platform, `kind` staff) fails here; an agent token fails at the
 * gateway and at identity by the same pins the other way round.
 */
import type { JSONWebKeySet, JWTPayload } from "jose";
import { identityJwtVerifier } from "../../lib/identity-jwt";
import { parseId } from "../../lib/ids";

const JWKS_TTL_MS = 5 * 60_000;
/** The longest Bearer read as an agent token. */
export const MAX_TOKEN_LENGTH = 4096;

/** The resource identifier of `/v1/mcp` (RFC 8707), the only audience agent tokens are issued for. */
export function mcpResource(issuer: string): string {
  return `${issuer}/v1/mcp`;
}

/** Where the resource's RFC 9728 metadata is (the `resource_metadata` of every challenge at `/v1/mcp`). */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource/v1/mcp`;
}

/** What an agent token says, once verified. */
export interface AgentClaims {
  userId: string;
  clientId: string;
  siteId: string;
  grantId: string;
  scopes: string[];
}

interface CachedKeys {
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

let cached: CachedKeys | null = null;
const verifier = identityJwtVerifier();

async function loadJwks(identity: Fetcher, force: boolean): Promise<JSONWebKeySet> {
  const now = Date.now();
  if (!force && cached && now - cached.fetchedAt < JWKS_TTL_MS) return cached.jwks;
  const res = await identity.fetch("https://identity/.well-known/jwks.json");
  if (!res.ok) throw new Error(`jwks fetch failed: ${res.status}`);
  const jwks = (await res.json()) as JSONWebKeySet;
  cached = { jwks, fetchedAt: now };
  return jwks;
}

/** Tests only: forgets the isolate's key set and the refresh floor. */
export function forgetJwksForTests(): void {
  cached = null;
  verifier.resetForTests();
}

function claimsOf(payload: JWTPayload, resource: string): AgentClaims | null {
  const { sub, aud, client_id, site_id, gid, kind, scope } = payload as Record<string, unknown>;
  // `aud` exactly this resource: a token for several audiences is refused too (no confused deputy).
  if (aud !== resource || kind !== "agent") return null;
  if (typeof sub !== "string" || typeof client_id !== "string" || typeof scope !== "string") return null;
  const siteId = typeof site_id === "string" ? parseId(site_id) : null;
  const grantId = typeof gid === "string" ? parseId(gid) : null;
  if (!siteId || !grantId || client_id === "") return null;
  return { userId: sub, clientId: client_id, siteId, grantId, scopes: scope.split(" ").filter(Boolean) };
}

/**
 * The claims of an agent access token identity signed for this resource; "expired" when only its `exp`
 * failed (said only of a token whose signature verified); null for anything else.
 */
export async function verifyAgentToken(
  identity: Fetcher,
  issuer: string,
  token: string,
): Promise<AgentClaims | "expired" | null> {
  const resource = mcpResource(issuer);
  // Identity's tokens are well under 1 KiB: a longer one is refused before anything parses it.
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const payload = await verifier.verify(token, (force) => loadJwks(identity, force), {
    issuer,
    audience: resource,
    typ: "at+jwt",
    requiredClaims: ["sub", "exp", "iat", "jti"],
  });
  if (payload === null || payload === "expired") return payload;
  return claimsOf(payload, resource);
}
