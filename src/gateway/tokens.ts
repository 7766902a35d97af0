import type { JSONWebKeySet } from "jose";
import { identityJwtVerifier } from "../lib/identity-jwt";

/**
 * Access-token verification at the edge against identity's JWKS (src/lib/identity-jwt.ts: EdDSA with a kid
 * only, one refresh on an unknown `kid` at most every 30 s). The key set is cached in the isolate and in KV
 * (read-mostly data).
 */
const JWKS_KV_KEY = "jwks:identity";
const JWKS_TTL_MS = 5 * 60_000;

interface CachedKeys {
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

let cached: CachedKeys | null = null;

async function loadJwks(env: GatewayEnv, force: boolean): Promise<JSONWebKeySet> {
  const now = Date.now();
  if (!force && cached && now - cached.fetchedAt < JWKS_TTL_MS) return cached.jwks;
  if (!force) {
    const fromKv = await env.EDGE_CACHE.get<CachedKeys>(JWKS_KV_KEY, "json");
    if (fromKv && now - fromKv.fetchedAt < JWKS_TTL_MS) {
      cached = fromKv;
      return fromKv.jwks;
    }
  }
  const res = await env.IDENTITY.fetch("https://identity/.well-known/jwks.json");
  if (!res.ok) throw new Error(`jwks fetch failed: ${res.status}`);
  const jwks = (await res.json()) as JSONWebKeySet;
  cached = { jwks, fetchedAt: now };
  await env.EDGE_CACHE.put(JWKS_KV_KEY, JSON.stringify(cached), { expirationTtl: 600 });
  return jwks;
}

export interface VerifiedToken {
  userId: string;
  sessionId: string;
}

const verifier = identityJwtVerifier();

/** The verified subject and session of a Bearer access token, or null when it is not one we issued. */
export async function verifyAccessToken(
  env: GatewayEnv,
  token: string,
): Promise<VerifiedToken | "expired" | null> {
  const payload = await verifier.verify(
    token,
    (force) => loadJwks(env, force),
    { issuer: env.TOKEN_ISSUER, audience: env.TOKEN_AUDIENCE },
    // An MCP agent's token (RFC 9068 `at+jwt`, issue 37) is content's `/v1/mcp`'s alone, never a staff session.
    (header) => !(typeof header.typ === "string" && header.typ.toLowerCase() === "at+jwt"),
  );
  if (payload === null || payload === "expired") return payload;
  if (payload.kind !== "staff") return null;
  if (typeof payload.sub !== "string" || typeof payload.sid !== "string") return null;
  return { userId: payload.sub, sessionId: payload.sid };
}
