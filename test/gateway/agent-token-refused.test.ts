/**
 * An MCP agent's access token (issue 37) is never a staff session: the gateway's staff routes (sites'
 * `/api/v1/*`, which the gateway authenticates itself) and identity's Bearer routes refuse it, whether it
 * is one identity issued through the token endpoint or one signed with identity's key that carries the
 * staff audience but not the staff `kind`, or the staff claims under the `at+jwt` type. The control: the
 * same signing with the staff claims and type is accepted, so each refusal is the rule's.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { base64url } from "../../src/lib/base64url";
import { newId } from "../../src/lib/ids";
import { agentToken, MCP_RESOURCE } from "../support/agent-tokens";
import { BASE, call, verifiedUser } from "../support/platform";

const e = env as unknown as { TEST_IDENTITY_DB: D1Database; JWT_SIGNING_KEYS: string };
const REDIRECT = "http://127.0.0.1:33418/callback";

async function sha256b64url(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}

/** A public registered client, the person's grant of it, and a code with its verifier, in identity's D1. */
async function grantWithCode(userId: string) {
  const db = e.TEST_IDENTITY_DB;
  const clientId = `mcp_${newId()}`;
  const grantId = newId();
  const siteId = newId();
  const code = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const now = new Date();
  const metadata = {
    redirect_uris: [REDIRECT],
    client_name: "Gateway test agent",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  await db.batch([
    db
      .prepare(
        `INSERT INTO oauth_clients (id, kind, name, redirect_uris, token_endpoint_auth_method, metadata_json, created_at, updated_at)
         VALUES (?, 'registered', ?, ?, 'none', ?, ?, ?)`,
      )
      .bind(
        clientId,
        metadata.client_name,
        JSON.stringify([REDIRECT]),
        JSON.stringify(metadata),
        now.toISOString(),
        now.toISOString(),
      ),
    db
      .prepare(
        `INSERT INTO oauth_grants (id, user_id, client_id, site_id, org_id, scope, resource, created_at)
         VALUES (?, ?, ?, ?, ?, 'posts:read', ?, ?)`,
      )
      .bind(grantId, userId, clientId, siteId, newId(), MCP_RESOURCE, now.toISOString()),
    db
      .prepare(
        `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        await sha256b64url(code),
        grantId,
        clientId,
        REDIRECT,
        await sha256b64url(verifier),
        MCP_RESOURCE,
        now.toISOString(),
        new Date(now.getTime() + 60_000).toISOString(),
      ),
  ]);
  return { clientId, grantId, siteId, userId, code, verifier };
}

async function issuedAgentToken(userId: string): Promise<string> {
  const g = await grantWithCode(userId);
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: g.code,
    redirect_uri: REDIRECT,
    code_verifier: g.verifier,
    client_id: g.clientId,
  });
  const answer = await exports.default.fetch(`${BASE}/api/v1/auth/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://agent.example" },
    body: form.toString(),
  });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("access-control-allow-origin")).toBeTruthy();
  return ((await answer.json()) as { access_token: string }).access_token;
}

function claimsOf(token: string): { sub: string; sid: string } {
  const part = token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part));
}

describe("the gateway and identity refuse an agent's access token as a staff session", () => {
  it("an issued agent token: 401 at the gateway's staff routes and at identity's /me; the person's session works", async () => {
    const person = await verifiedUser();
    const agent = await issuedAgentToken(person.user.id);
    expect((await call("GET", "/api/v1/sites", { token: agent })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/me", { token: agent })).status).toBe(401);
    expect((await call("GET", "/api/v1/sites", { token: person.access_token })).status).toBe(200);
    expect((await call("GET", "/api/v1/auth/me", { token: person.access_token })).status).toBe(200);
  });

  it("signed with identity's key for the staff audience: only kind staff under typ JWT passes", async () => {
    const person = await verifiedUser();
    const { sub, sid } = claimsOf(person.access_token);
    const grant = {
      grantId: newId(),
      clientId: "mcp_x",
      userId: sub,
      siteId: newId(),
      scopes: ["posts:read"],
    };
    const staffAudience = { aud: "site-platform", sid };
    const forge = (claims: Record<string, unknown>, typ: string) =>
      agentToken(e.JWT_SIGNING_KEYS, grant, { claims: { ...staffAudience, ...claims }, header: { typ } });
    const control = await forge({ kind: "staff" }, "JWT");
    expect((await call("GET", "/api/v1/sites", { token: control })).status).toBe(200);
    expect((await call("GET", "/api/v1/auth/me", { token: control })).status).toBe(200);
    const refused = [
      await forge({ kind: "agent" }, "JWT"),
      await forge({ kind: undefined }, "JWT"),
      await forge({ kind: "staff" }, "at+jwt"),
      await forge({ kind: "staff" }, "AT+JWT"),
    ];
    for (const token of refused) {
      expect((await call("GET", "/api/v1/sites", { token })).status).toBe(401);
      expect((await call("GET", "/api/v1/auth/me", { token })).status).toBe(401);
    }
  });
});
