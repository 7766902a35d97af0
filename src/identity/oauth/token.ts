/**
 * The token endpoint's work (issue 37, docs/decisions/oauth-agents.md "Tokens"): the client's
 * authentication by its registered method (RFC 6749 §2.3.1), the authorization code's redemption (PKCE S256,
 * RFC 7636 §4.6; exact redirect URI; RFC 8707 resource; single use, a replay ends the grant, RFC 9700
 * §4.5.3), the refresh token's rotation (the grant's RefreshFamily Durable Object, a reuse ends the grant,
 * RFC 9700 §4.14.2), and the access token (RFC 9068). Refusals are `OAuthError`s, rendered by the route as
 * RFC 6749 §5.2 JSON.
 */
import { batch } from "../../lib/sql";
import type { Services } from "../core/context";
import { isoIn, nowIso, timingSafeEqual } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { type EventOrigin, eventOrigin, recordEvent } from "../events/events";
import { AGENT_TOKEN_TTL_S, signAgentToken } from "../login/tokens";
import { resolveClient, verifyClientSecret } from "./clients";
import { endGrants } from "./grants";
import type { GrantRotateOutcome } from "./refresh";
import { newGrantRefreshToken, oauthHash, REFRESH_TOKEN_TTL_S, refreshTokenGrant } from "./refresh-tokens";
import {
  codeByHash,
  firstUseOfDayStatement,
  type IssuingGrant,
  insertRefreshTokenStatement,
  issuingGrant,
  spendCodeStatement,
  touchGrantStatement,
} from "./tokens-store";

/** An RFC 6749 §5.2 refusal (or RFC 7009's, RFC 8707's `invalid_target`). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const invalidGrant = (why: string) => new OAuthError("invalid_grant", why);
const invalidRequest = (why: string) => new OAuthError("invalid_request", why);

/** `oauth_grant.used` is written on the first use of each such period. */
const USED_EVENT_PERIOD_S = 24 * 3600;

// ---- Client authentication ----------------------------------------------------------------------

/** What the request presented: `Authorization: Basic` (decoded) and the body's `client_id`/`client_secret`. */
export interface PresentedClient {
  basic: { id: string; secret: string } | null;
  bodyId: string | null;
  bodySecret: string | null;
}

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="oauth", charset="UTF-8"' };

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded before Basic's `id:secret`. */
function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, " "));
}

/**
 * The `Authorization` header as Basic client credentials: null when absent; an `OAuthError` when it is
 * present but not Basic credentials (RFC 6749 §5.2: 401 with the scheme's challenge).
 */
export function parseBasic(header: string | undefined): PresentedClient["basic"] {
  if (header === undefined) return null;
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  try {
    if (!m) throw new Error("scheme");
    const decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0)),
    );
    const colon = decoded.indexOf(":");
    if (colon < 1) throw new Error("shape");
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError("invalid_client", "Malformed Basic client credentials.", 401, BASIC_CHALLENGE);
  }
}

export interface AuthenticatedClient {
  id: string;
}

/**
 * The client, authenticated by the one method it registered (`none`: `client_id` in the body and no secret;
 * `client_secret_post`; `client_secret_basic`). Two methods at once is `invalid_request` (RFC 6749 §2.3);
 * an unknown client, a wrong secret or another method than the registered one is `invalid_client` (401,
 * with `WWW-Authenticate: Basic` when Basic was used).
 */
export async function authenticateClient(
  env: Env,
  services: Services,
  presented: PresentedClient,
): Promise<AuthenticatedClient> {
  const { basic, bodyId, bodySecret } = presented;
  if (basic && bodySecret !== null) throw invalidRequest("Use one client authentication method.");
  const refused = new OAuthError(
    "invalid_client",
    "Client authentication failed.",
    401,
    basic ? BASIC_CHALLENGE : {},
  );
  const id = basic?.id ?? bodyId;
  if (!id || (basic && bodyId !== null && bodyId !== basic.id)) throw refused;
  const resolution = await resolveClient(env, services, id);
  if (!resolution.ok) throw refused;
  const { client } = resolution;
  const method = client.authMethod;
  const secret =
    method === "client_secret_basic" ? basic?.secret : method === "client_secret_post" ? bodySecret : null;
  if (method === "none") {
    if (basic || bodySecret !== null) throw refused;
  } else if (!secret || (method === "client_secret_basic") !== (basic !== null)) {
    throw refused;
  } else if (!(await verifyClientSecret(client, secret))) {
    throw refused;
  }
  return { id: client.id };
}

// ---- Issuance ---------------------------------------------------------------------------------

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** `resource` absent means the grant's; any other value than the grant's is `invalid_target` (RFC 8707). */
function checkResource(requested: string | null, bound: string): void {
  if (requested !== null && requested !== bound) {
    throw new OAuthError("invalid_target", "The resource is not the one this grant is for.");
  }
}

/** A grant that may issue: live, of a live account, of this client. */
function requireIssuing(grant: IssuingGrant | null, clientId: string): IssuingGrant {
  if (!grant || grant.client_id !== clientId) throw invalidGrant("The grant is unknown.");
  if (grant.revoked_at !== null) throw invalidGrant("The grant was revoked.");
  if (grant.user_status !== "active") throw invalidGrant("The grant's account cannot act.");
  return grant;
}

/**
 * Records the use: `last_used_at` always, and the person's `oauth_grant.used` event when this is the
 * grant's first use of the day (the compare-and-set on `last_used_at` decides, races included).
 */
async function recordUse(db: D1Database, grant: IssuingGrant, origin: EventOrigin): Promise<void> {
  const now = nowIso();
  const dayAgo = new Date(Date.now() - USED_EVENT_PERIOD_S * 1000).toISOString();
  await batch(db, [
    firstUseOfDayStatement(db, grant.id, now, dayAgo),
    recordEvent(
      db,
      origin,
      {
        userId: grant.user_id,
        type: "oauth_grant.used",
        target: grant.id,
        detail: `client ${grant.client_id}`,
      },
      { ifChanged: true },
    ),
    touchGrantStatement(db, grant.id, now),
  ]);
}

async function answer(env: Env, grant: IssuingGrant, scopes: string[], refreshToken: string) {
  const accessToken = await signAgentToken(env, {
    userId: grant.user_id,
    clientId: grant.client_id,
    grantId: grant.id,
    siteId: grant.site_id,
    scopes,
    resource: grant.resource,
  });
  const body: TokenAnswer = {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: AGENT_TOKEN_TTL_S,
    refresh_token: refreshToken,
    scope: scopes.join(" "),
  };
  return body;
}

// ---- grant_type=authorization_code -------------------------------------------------------------

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export interface CodeRedemption {
  code: string | null;
  redirectUri: string | null;
  codeVerifier: string | null;
  resource: string | null;
}

/** PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(ASCII(verifier))) equals the stored challenge. */
async function pkceMatches(verifier: string | null, challenge: string): Promise<boolean> {
  if (verifier === null || !VERIFIER.test(verifier)) return false;
  return timingSafeEqual(await oauthHash(verifier), challenge);
}

/**
 * Redeems a code: every binding checked first (client, expiry, redirect URI, PKCE, resource), then its
 * single use and the grant's first refresh token in one batch (the token is written only if this call
 * spent the code). A code already spent, by an earlier call or a concurrent one, is a replay: the grant
 * ends (`code_replay`), and with it every token the code produced.
 */
export async function redeemCode(
  env: Env,
  services: Services,
  client: AuthenticatedClient,
  input: CodeRedemption,
): Promise<TokenAnswer> {
  if (!input.code) throw invalidRequest("code is required.");
  if (!input.redirectUri) throw invalidRequest("redirect_uri is required.");
  const db = env.DB;
  const codeHash = await oauthHash(input.code);
  const code = await codeByHash(db, codeHash);
  if (!code || code.client_id !== client.id) throw invalidGrant("The code is unknown.");
  if (code.used_at !== null) return replayed(db, code.grant_id);
  if (code.expires_at <= nowIso()) throw invalidGrant("The code expired.");
  if (code.redirect_uri !== input.redirectUri) throw invalidGrant("redirect_uri differs from the code's.");
  if (!(await pkceMatches(input.codeVerifier, code.code_challenge))) {
    throw invalidGrant("code_verifier does not match the code's challenge.");
  }
  checkResource(input.resource, code.resource);
  const grant = requireIssuing(await issuingGrant(db, code.grant_id), client.id);
  const refreshToken = newGrantRefreshToken(grant.id);
  const now = nowIso();
  const [spent] = await batch(db, [
    spendCodeStatement(db, codeHash, now),
    insertRefreshTokenStatement(db, {
      hash: await oauthHash(refreshToken),
      grantId: grant.id,
      now,
      expiresAt: isoIn(REFRESH_TOKEN_TTL_S, Date.parse(now)),
    }),
  ]);
  if (spent.changes === 0) {
    const again = await codeByHash(db, codeHash);
    if (again?.used_at) return replayed(db, code.grant_id);
    throw invalidGrant("The code expired or its grant was revoked.");
  }
  await recordUse(db, grant, eventOrigin(services.request));
  return answer(env, grant, grant.scope.split(" ").filter(Boolean), refreshToken);
}

async function replayed(db: D1Database, grantId: string): Promise<never> {
  await endGrants(db, { id: grantId }, { reason: "code_replay" });
  throw invalidGrant("The code was already used; the grant it created is revoked.");
}

// ---- grant_type=refresh_token ------------------------------------------------------------------

export interface RefreshRequest {
  refreshToken: string | null;
  scope: string | null;
  resource: string | null;
}

/** A requested scope: space-separated, each a scope of the grant (narrowing only: RFC 6749 §6). */
function narrowedScopes(requested: string | null, granted: string[]): string[] {
  if (requested === null) return granted;
  const asked = [...new Set(requested.split(" ").filter(Boolean))];
  if (asked.length === 0 || asked.some((s) => !granted.includes(s))) {
    throw new OAuthError("invalid_scope", "The scope exceeds what the grant allows.");
  }
  return granted.filter((s) => asked.includes(s));
}

/**
 * Rotates a refresh token in its grant's RefreshFamily Durable Object (one successor per token, reuse ends
 * the grant) and issues an access token for the grant's scopes or fewer.
 */
export async function refreshGrant(
  env: Env,
  services: Services,
  client: AuthenticatedClient,
  input: RefreshRequest,
): Promise<TokenAnswer> {
  if (!input.refreshToken) throw invalidRequest("refresh_token is required.");
  const grantId = refreshTokenGrant(input.refreshToken);
  if (!grantId) throw invalidGrant("The refresh token is unknown.");
  const grant = requireIssuing(await issuingGrant(env.DB, grantId), client.id);
  checkResource(input.resource, grant.resource);
  const scopes = narrowedScopes(input.scope, grant.scope.split(" ").filter(Boolean));
  const origin = eventOrigin(services.request);
  let outcome: GrantRotateOutcome;
  try {
    const stub = env.REFRESH_FAMILIES.get(env.REFRESH_FAMILIES.idFromName(`grant:${grantId}`));
    outcome = await stub.rotateGrant({ token: input.refreshToken, grantId, origin });
  } catch (err) {
    services.log.error("grant_refresh_unavailable", { reason: (err as Error).message });
    throw new OAuthError("temporarily_unavailable", "Retry shortly.", 503, { "Retry-After": "1" });
  }
  if (outcome.kind !== "ok") throw invalidGrant(REFUSALS[outcome.reason]);
  await recordUse(env.DB, grant, origin);
  return answer(env, grant, scopes, outcome.refreshToken);
}

const REFUSALS: Record<Exclude<GrantRotateOutcome, { kind: "ok" }>["reason"], string> = {
  unknown: "The refresh token is unknown.",
  expired: "The refresh token expired.",
  revoked: "The grant was revoked.",
  reuse: "The refresh token was already used; the grant is revoked.",
};
