/**
 * MCP agents' OAuth grants and access tokens for the workerd projects (issue 37), as identity makes them
 * (docs/decisions/oauth-agents.md, "Names"): a client and a grant inserted into identity's database, and an
 * EdDSA `at+jwt` signed with the test signing key the workers are configured with (JWT_SIGNING_KEYS), so
 * content's `/v1/mcp` is tested against identity's real JWKS and its real `agentAccess`. Every claim and
 * header can be changed, to forge what the resource must refuse.
 */
import { importJWK, type JWK, SignJWT } from "jose";
import { newId } from "../../src/lib/ids";

/** Identity's issuer in the workerd projects (the committed configs' ISSUER and TOKEN_ISSUER). */
export const TEST_ISSUER = "http://localhost:8787";
export const MCP_RESOURCE = `${TEST_ISSUER}/v1/mcp`;
export const RESOURCE_METADATA = `${TEST_ISSUER}/.well-known/oauth-protected-resource/v1/mcp`;

export interface SeededGrant {
  grantId: string;
  clientId: string;
  userId: string;
  siteId: string;
  scopes: string[];
}

/** A registered client and the person's grant of it on the site (live), with these scopes. */
export async function seedGrant(
  identityDb: D1Database,
  grant: { userId: string; siteId: string; orgId: string; scopes: string[] },
): Promise<SeededGrant> {
  const clientId = `mcp_${newId()}`;
  const grantId = newId();
  const now = new Date().toISOString();
  await identityDb.batch([
    identityDb
      .prepare(
        `INSERT INTO oauth_clients (id, kind, name, redirect_uris, metadata_json, created_at, updated_at)
         VALUES (?, 'registered', 'Test agent', ?, '{}', ?, ?)`,
      )
      .bind(clientId, JSON.stringify(["http://127.0.0.1:9/callback"]), now, now),
    identityDb
      .prepare(
        `INSERT INTO oauth_grants (id, user_id, client_id, site_id, org_id, scope, resource, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        grantId,
        grant.userId,
        clientId,
        grant.siteId,
        grant.orgId,
        grant.scopes.join(" "),
        MCP_RESOURCE,
        now,
      ),
  ]);
  return { grantId, clientId, userId: grant.userId, siteId: grant.siteId, scopes: grant.scopes };
}

/** Revokes the grant in identity (as the person's revocation does). */
export async function revokeGrant(identityDb: D1Database, grantId: string): Promise<void> {
  await identityDb
    .prepare("UPDATE oauth_grants SET revoked_at = ?, revoked_reason = 'test' WHERE id = ?")
    .bind(new Date().toISOString(), grantId)
    .run();
}

export interface TokenOptions {
  /** Claims replacing (or, with undefined, removing) the grant's. */
  claims?: Record<string, unknown>;
  /** Header members replacing the default `{alg: EdDSA, kid, typ: at+jwt}`. */
  header?: Record<string, unknown>;
  /** Which configured key signs (default `current`), or a foreign key. */
  key?: "current" | "next" | "foreign";
  /** Seconds since the epoch the token was issued at (default now); it lives 300 s. */
  iat?: number;
}

/** An access token of the grant, as identity issues it for `/v1/mcp`, signed with the test keys. */
export async function agentToken(
  signingKeysJson: string,
  grant: SeededGrant,
  options: TokenOptions = {},
): Promise<string> {
  const keys = JSON.parse(signingKeysJson) as { current: JWK; next: JWK };
  const jwk = options.key === "next" ? keys.next : keys.current;
  let signer: CryptoKey | Uint8Array;
  if (options.key === "foreign") {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    signer = pair.privateKey;
  } else signer = (await importJWK({ ...jwk, alg: "EdDSA" }, "EdDSA")) as CryptoKey;
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: TEST_ISSUER,
    aud: MCP_RESOURCE,
    sub: grant.userId,
    client_id: grant.clientId,
    scope: grant.scopes.join(" "),
    site_id: grant.siteId,
    gid: grant.grantId,
    kind: "agent",
    iat,
    exp: iat + 300,
    jti: newId(),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "at+jwt", ...options.header } as {
      alg: string;
    })
    .sign(signer);
}
