import {
  createLocalJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
} from "jose";
import { expiredJwt } from "../lib/bearer";

/**
 * Access-token verification at the edge against identity's JWKS. The key set is cached in the isolate
 * and in KV (read-mostly data); an unknown `kid` triggers one refresh (at most every 30 s) so a rotated
 * key works at once without letting a flood of forged kids hammer identity.
 */
const JWKS_KV_KEY = "jwks:identity";
const JWKS_TTL_MS = 5 * 60_000;
const REFRESH_FLOOR_MS = 30_000;

interface CachedKeys {
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

let cached: CachedKeys | null = null;
let lastForcedRefresh = 0;

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

/** The verified subject and session of a Bearer access token, or null when it is not one we issued. */
export async function verifyAccessToken(
  env: GatewayEnv,
  token: string,
): Promise<VerifiedToken | "expired" | null> {
  const options = { issuer: env.TOKEN_ISSUER, audience: env.TOKEN_AUDIENCE, algorithms: ["EdDSA"] };
  // Only EdDSA with a key id is ours; anything else ("none", HS256 with the public key...) stops here.
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== "EdDSA" || typeof header.kid !== "string") return null;
    // An MCP agent's token (RFC 9068 `at+jwt`, issue 37) is content's `/v1/mcp`'s alone, never a staff session.
    if (typeof header.typ === "string" && header.typ.toLowerCase() === "at+jwt") return null;
  } catch {
    return null;
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, createLocalJWKSet(await loadJwks(env, false)), options));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (expiredJwt(err)) return "expired";
    if (code !== "ERR_JWKS_NO_MATCHING_KEY" || Date.now() - lastForcedRefresh < REFRESH_FLOOR_MS) return null;
    lastForcedRefresh = Date.now();
    try {
      ({ payload } = await jwtVerify(token, createLocalJWKSet(await loadJwks(env, true)), options));
    } catch (retryErr) {
      return expiredJwt(retryErr) ? "expired" : null;
    }
  }
  if (payload.kind !== "staff") return null;
  if (typeof payload.sub !== "string" || typeof payload.sid !== "string") return null;
  return { userId: payload.sub, sessionId: payload.sid };
}
