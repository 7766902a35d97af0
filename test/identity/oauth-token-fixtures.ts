/**
 * Fixtures of the OAuth token tests (issue 37): clients, persons, grants and codes written straight into
 * identity's D1 the way registration and consent write them (hashes as docs/decisions/oauth-agents.md says),
 * and token requests through the real Worker.
 */
import { env } from "cloudflare:workers";
import { base64url } from "../../src/lib/base64url";
import { newId } from "../../src/lib/ids";
import { call, freshIp } from "../support/identity-helpers";

const e = env as unknown as { DB: D1Database; ISSUER: string };
const db = () => e.DB;

export const TOKEN = "/api/v1/auth/oauth/token";
export const REVOKE = "/api/v1/auth/oauth/revoke";
export const RESOURCE = () => `${e.ISSUER}/v1/mcp`;
export const REDIRECT = "http://127.0.0.1:33418/callback";

export async function sha256b64url(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

export type AuthMethod = "none" | "client_secret_post" | "client_secret_basic";

export interface SeededClient {
  id: string;
  secret: string | null;
  method: AuthMethod;
}

/** A registered client as RFC 7591 registration stores it. */
export async function seedClient(method: AuthMethod = "none"): Promise<SeededClient> {
  const id = `mcp_${newId()}`;
  const secret = method === "none" ? null : `mcs_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const now = new Date().toISOString();
  const metadata = {
    redirect_uris: [REDIRECT],
    client_name: `Agent ${id.slice(-6)}`,
    token_endpoint_auth_method: method,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  await db()
    .prepare(
      `INSERT INTO oauth_clients (id, kind, name, redirect_uris, token_endpoint_auth_method, secret_hash,
         metadata_json, created_at, updated_at) VALUES (?, 'registered', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      id,
      metadata.client_name,
      JSON.stringify(metadata.redirect_uris),
      method,
      secret ? await sha256b64url(secret) : null,
      JSON.stringify(metadata),
      now,
      now,
    )
    .run();
  return { id, secret, method };
}

/** An active account written directly (no session needed by the token endpoint). */
export async function seedUser(): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await db()
    .prepare(
      "INSERT INTO users (id, status, display_name, created_at, updated_at) VALUES (?, 'active', ?, ?, ?)",
    )
    .bind(id, `Person ${id.slice(-4)}`, now, now)
    .run();
  return id;
}

export interface SeededGrant {
  grantId: string;
  userId: string;
  siteId: string;
  orgId: string;
  client: SeededClient;
  scope: string;
}

/** A live grant as consent writes it. */
export async function seedGrant(
  options: { client?: SeededClient; userId?: string; siteId?: string; orgId?: string; scope?: string } = {},
): Promise<SeededGrant> {
  const client = options.client ?? (await seedClient());
  const userId = options.userId ?? (await seedUser());
  const grantId = newId();
  const siteId = options.siteId ?? newId();
  const orgId = options.orgId ?? newId();
  const scope = options.scope ?? "posts:read posts:write media:read";
  await db()
    .prepare(
      `INSERT INTO oauth_grants (id, user_id, client_id, site_id, org_id, scope, resource, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(grantId, userId, client.id, siteId, orgId, scope, RESOURCE(), new Date().toISOString())
    .run();
  return { grantId, userId, siteId, orgId, client, scope };
}

export interface SeededCode {
  code: string;
  verifier: string;
}

/** A code of the grant (S256 challenge of a fresh verifier), valid `ttlSeconds` (negative: expired). */
export async function seedCode(
  grant: SeededGrant,
  options: { ttlSeconds?: number; redirectUri?: string; resource?: string } = {},
): Promise<SeededCode> {
  const code = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const now = Date.now();
  await db()
    .prepare(
      `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      await sha256b64url(code),
      grant.grantId,
      grant.client.id,
      options.redirectUri ?? REDIRECT,
      await sha256b64url(verifier),
      options.resource ?? RESOURCE(),
      new Date(now).toISOString(),
      new Date(now + (options.ttlSeconds ?? 60) * 1000).toISOString(),
    )
    .run();
  return { code, verifier };
}

/** Client authentication parameters and headers by the client's method. */
export function clientAuth(client: SeededClient): {
  form: Record<string, string>;
  headers: Record<string, string>;
} {
  if (client.method === "client_secret_basic") {
    const basic = btoa(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret!)}`);
    return { form: {}, headers: { authorization: `Basic ${basic}` } };
  }
  if (client.method === "client_secret_post") {
    return { form: { client_id: client.id, client_secret: client.secret! }, headers: {} };
  }
  return { form: { client_id: client.id }, headers: {} };
}

/** A form POST through the identity Worker. */
export function postForm(
  path: string,
  form: Record<string, string>,
  options: { headers?: Record<string, string>; ip?: string } = {},
): Promise<Response> {
  return call("POST", path, {
    rawBody: new URLSearchParams(form).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...options.headers },
    ip: options.ip ?? freshIp(),
  });
}

/** The token request of the code, authenticated as the grant's client. */
export function redeem(
  grant: SeededGrant,
  code: SeededCode,
  extra: Record<string, string> = {},
  ip?: string,
): Promise<Response> {
  const auth = clientAuth(grant.client);
  const form = {
    grant_type: "authorization_code",
    code: code.code,
    redirect_uri: REDIRECT,
    code_verifier: code.verifier,
    ...auth.form,
    ...extra,
  };
  return postForm(TOKEN, form, { headers: auth.headers, ip });
}

export function refresh(
  grant: SeededGrant,
  refreshToken: string,
  extra: Record<string, string> = {},
  ip?: string,
): Promise<Response> {
  const auth = clientAuth(grant.client);
  const form = { grant_type: "refresh_token", refresh_token: refreshToken, ...auth.form, ...extra };
  return postForm(TOKEN, form, { headers: auth.headers, ip });
}

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface GrantState {
  revoked_at: string | null;
  revoked_reason: string | null;
  revoked_by: string | null;
  last_used_at: string | null;
}

export async function grantState(grantId: string): Promise<GrantState> {
  const row = await db()
    .prepare("SELECT revoked_at, revoked_reason, revoked_by, last_used_at FROM oauth_grants WHERE id = ?")
    .bind(grantId)
    .first<GrantState>();
  if (!row) throw new Error(`no grant ${grantId}`);
  return row;
}

export async function eventsOf(
  userId: string,
  type: string,
): Promise<{ target: string | null; method: string | null; actor_user_id: string | null }[]> {
  const { results } = await db()
    .prepare(
      "SELECT target, method, actor_user_id FROM security_events WHERE user_id = ? AND type = ? ORDER BY id",
    )
    .bind(userId, type)
    .all<{ target: string | null; method: string | null; actor_user_id: string | null }>();
  return results;
}
