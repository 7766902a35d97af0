import { importJWK, type CryptoKey as JoseKey, type JWK, SignJWT } from "jose";
import { newId } from "../../lib/ids";
import { AUDIENCE } from "../core/config";
import type { Env } from "../core/worker-env";

/**
 * Access tokens: EdDSA (Ed25519) JWTs. Keys come from the secret JWT_SIGNING_KEYS =
 * `{"current": <private JWK with kid>, "next": <private JWK>, "previous"?: <JWK, public part suffices>}`.
 * The JWKS publishes current, next and previous, so a gateway already knows `next` before it signs and
 * still knows `previous` while tokens signed by it live (rotation procedure in docs/decisions/identity.md).
 * Sources: JWT (RFC 7519) with EdDSA per RFC 8037; RFC 8725 (JWT Best Current Practices) §3.1 and §3.11:
 * the verifier pins the algorithm and the token type instead of trusting the header, and checks issuer
 * and audience; keys published as a JWK Set (RFC 7517 §5) with `kid` so rotation needs no coordination.
 */
interface SigningKeys {
  current: JWK;
  next: JWK;
  previous?: JWK;
}

interface LoadedKeys {
  raw: string;
  kid: string;
  privateKey: JoseKey | Uint8Array;
  jwks: { keys: JWK[] };
}

let loaded: LoadedKeys | null = null;

function publicPart(jwk: JWK): JWK {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.x || !jwk.kid) {
    throw new Error("JWT_SIGNING_KEYS: every key must be an Ed25519 OKP JWK with a kid");
  }
  return { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: jwk.kid, alg: "EdDSA", use: "sig" };
}

async function keys(env: Env): Promise<LoadedKeys> {
  if (loaded && loaded.raw === env.JWT_SIGNING_KEYS) return loaded;
  const parsed = JSON.parse(env.JWT_SIGNING_KEYS) as SigningKeys;
  const published = [parsed.current, parsed.next, ...(parsed.previous ? [parsed.previous] : [])].map(
    publicPart,
  );
  const privateKey = await importJWK({ ...parsed.current, alg: "EdDSA" }, "EdDSA");
  loaded = {
    raw: env.JWT_SIGNING_KEYS,
    kid: parsed.current.kid!,
    privateKey,
    jwks: { keys: published },
  };
  return loaded;
}

export async function jwks(env: Env): Promise<{ keys: JWK[] }> {
  return (await keys(env)).jwks;
}

export function accessTokenTtl(env: Env): number {
  const ttl = Number(env.ACCESS_TOKEN_TTL);
  return Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 900;
}

/** Claims are exactly iss, aud, sub, sid, kind, iat, exp, jti. */
export async function signAccessToken(env: Env, userId: string, sessionId: string): Promise<string> {
  const k = await keys(env);
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: sessionId, kind: "staff" })
    .setProtectedHeader({ alg: "EdDSA", kid: k.kid, typ: "JWT" })
    .setIssuer(env.ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + accessTokenTtl(env))
    .setJti(newId())
    .sign(k.privateKey);
}

/** An MCP agent's access token lives this long (issue 37: 5 minutes or less). */
export const AGENT_TOKEN_TTL_S = 300;

/** What an agent's access token says: the grant, its person, its client, its site and the scopes it carries. */
export interface AgentTokenClaims {
  userId: string;
  clientId: string;
  grantId: string;
  siteId: string;
  scopes: readonly string[];
  /** The resource (RFC 8707) the token is for: its audience. */
  resource: string;
}

/**
 * An MCP agent's access token (RFC 9068 JWT profile, docs/decisions/oauth-agents.md): header `typ: at+jwt`;
 * claims exactly iss, aud (the resource), sub, client_id, scope, site_id, gid, kind ("agent"), iat, exp
 * (iat + 300), jti. Signed by the same keys as staff tokens; every staff verification refuses it by its
 * audience, its `kind` and its `typ`.
 */
export async function signAgentToken(env: Env, claims: AgentTokenClaims): Promise<string> {
  const k = await keys(env);
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({
    client_id: claims.clientId,
    scope: claims.scopes.join(" "),
    site_id: claims.siteId,
    gid: claims.grantId,
    kind: "agent",
  })
    .setProtectedHeader({ alg: "EdDSA", kid: k.kid, typ: "at+jwt" })
    .setIssuer(env.ISSUER)
    .setAudience(claims.resource)
    .setSubject(claims.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + AGENT_TOKEN_TTL_S)
    .setJti(newId())
    .sign(k.privateKey);
}
