/**
 * The token endpoint's authorization code grant (issue 37, docs/decisions/oauth-agents.md "Tokens"): the
 * code's bindings (client, redirect URI, PKCE S256, resource, expiry), its single use (a replay ends the
 * grant and what the code produced, races included), client authentication by the registered method, the
 * request's form, the answer's headers and the access token's claims.
 */
import { env } from "cloudflare:workers";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { call, freshIp, json } from "../support/identity-helpers";
import {
  clientAuth,
  eventsOf,
  grantState,
  postForm,
  REDIRECT,
  RESOURCE,
  REVOKE,
  redeem,
  refresh,
  seedClient,
  seedCode,
  seedGrant,
  TOKEN,
  type TokenBody,
} from "./oauth-token-fixtures";

const e = env as unknown as { DB: D1Database; ISSUER: string };

async function oauthError(res: Response): Promise<{ status: number; error: string }> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = await json<{ error: string; error_description?: string }>(res);
  return { status: res.status, error: body.error };
}

async function verifyAgentToken(token: string) {
  const jwks = await json<JSONWebKeySet>(await call("GET", "/.well-known/jwks.json"));
  return jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: e.ISSUER,
    audience: RESOURCE(),
    algorithms: ["EdDSA"],
    typ: "at+jwt",
  });
}

describe("authorization_code: a good redemption", () => {
  it("answers the tokens with no-store, open CORS, and an at+jwt access token with exactly the documented claims", async () => {
    const grant = await seedGrant({ scope: "posts:read media:read" });
    const res = await redeem(grant, await seedCode(grant));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = await json<TokenBody>(res);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 300, scope: "posts:read media:read" });
    expect(body.refresh_token).toMatch(new RegExp(`^mcr_${grant.grantId}\\.[A-Za-z0-9_-]{43}$`));
    const { payload, protectedHeader } = await verifyAgentToken(body.access_token);
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "at+jwt" });
    expect(Object.keys(payload).sort()).toEqual(
      ["aud", "client_id", "exp", "gid", "iat", "iss", "jti", "kind", "scope", "site_id", "sub"].sort(),
    );
    expect(payload).toMatchObject({
      iss: e.ISSUER,
      aud: RESOURCE(),
      sub: grant.userId,
      client_id: grant.client.id,
      scope: "posts:read media:read",
      site_id: grant.siteId,
      gid: grant.grantId,
      kind: "agent",
    });
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it("records last_used_at and one oauth_grant.used event per day of use", async () => {
    const grant = await seedGrant();
    const first = await json<TokenBody>(await redeem(grant, await seedCode(grant)));
    const used = await grantState(grant.grantId);
    expect(used.last_used_at).not.toBeNull();
    expect(await eventsOf(grant.userId, "oauth_grant.used")).toEqual([
      expect.objectContaining({ target: grant.grantId }),
    ]);
    const second = await json<TokenBody>(await refresh(grant, first.refresh_token));
    expect(await eventsOf(grant.userId, "oauth_grant.used")).toHaveLength(1);
    expect((await grantState(grant.grantId)).last_used_at! >= used.last_used_at!).toBe(true);
    // A day later the next use is the day's first again.
    const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString();
    await e.DB.prepare("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?")
      .bind(dayAgo, grant.grantId)
      .run();
    expect((await refresh(grant, second.refresh_token)).status).toBe(200);
    expect(await eventsOf(grant.userId, "oauth_grant.used")).toHaveLength(2);
  });

  it("takes resource absent or equal to the code's; another resource is invalid_target", async () => {
    const grant = await seedGrant();
    const other = await redeem(grant, await seedCode(grant), { resource: "https://evil.example/v1/mcp" });
    expect(await oauthError(other)).toEqual({ status: 400, error: "invalid_target" });
    expect((await redeem(grant, await seedCode(grant), { resource: RESOURCE() })).status).toBe(200);
  });
});

describe("authorization_code: refusals", () => {
  it("a wrong, missing, plain or malformed code_verifier is invalid_grant", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const challenge = (
      await e.DB.prepare("SELECT code_challenge FROM oauth_codes WHERE grant_id = ?")
        .bind(grant.grantId)
        .first<{ code_challenge: string }>()
    )?.code_challenge;
    const wrong = "A".repeat(43);
    for (const verifier of [wrong, challenge!, code.verifier.slice(0, 42), `${code.verifier}!`]) {
      const res = await redeem(grant, { ...code, verifier });
      expect(await oauthError(res)).toEqual({ status: 400, error: "invalid_grant" });
    }
    const missing = await redeem(grant, code, { code_verifier: "" });
    expect(await oauthError(missing)).toEqual({ status: 400, error: "invalid_grant" });
    // None of these spent the code: the right verifier still redeems it.
    expect((await redeem(grant, code)).status).toBe(200);
  });

  it("a redirect URI other than the code's is invalid_grant; none at all is invalid_request", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    for (const redirect_uri of [
      `${REDIRECT}/`,
      "http://127.0.0.1:33418/callback?x=1",
      "http://localhost:33418/callback",
    ]) {
      expect(await oauthError(await redeem(grant, code, { redirect_uri }))).toEqual({
        status: 400,
        error: "invalid_grant",
      });
    }
    expect(await oauthError(await redeem(grant, code, { redirect_uri: "" }))).toEqual({
      status: 400,
      error: "invalid_request",
    });
  });

  it("another client's code is invalid_grant (and leaves the code to its own client)", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const thief = await seedGrant();
    const res = await redeem(thief, code);
    expect(await oauthError(res)).toEqual({ status: 400, error: "invalid_grant" });
    expect((await grantState(grant.grantId)).revoked_at).toBeNull();
    expect((await redeem(grant, code)).status).toBe(200);
  });

  it("an expired code, an unknown code, and a code of a revoked grant are invalid_grant", async () => {
    const grant = await seedGrant();
    const expired = await seedCode(grant, { ttlSeconds: -1 });
    expect(await oauthError(await redeem(grant, expired))).toEqual({ status: 400, error: "invalid_grant" });
    const unknown = { code: "x".repeat(43), verifier: expired.verifier };
    expect(await oauthError(await redeem(grant, unknown))).toEqual({ status: 400, error: "invalid_grant" });
    const live = await seedCode(grant);
    await e.DB.prepare("UPDATE oauth_grants SET revoked_at = ?, revoked_reason = 'person' WHERE id = ?")
      .bind(new Date().toISOString(), grant.grantId)
      .run();
    expect(await oauthError(await redeem(grant, live))).toEqual({ status: 400, error: "invalid_grant" });
  });

  it("a replayed code is invalid_grant and ends the grant: the tokens the code produced stop working", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const first = await json<TokenBody>(await redeem(grant, code));
    const replay = await redeem(grant, code);
    expect(await oauthError(replay)).toEqual({ status: 400, error: "invalid_grant" });
    expect(await grantState(grant.grantId)).toMatchObject({ revoked_reason: "code_replay" });
    expect(await oauthError(await refresh(grant, first.refresh_token))).toEqual({
      status: 400,
      error: "invalid_grant",
    });
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toEqual([
      expect.objectContaining({ target: grant.grantId, method: "code_replay" }),
    ]);
  });

  it("50 concurrent redemptions of one code: one answer has tokens, the rest are replays that end the grant", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 50 }, () => redeem(grant, code, {}, ip)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(49);
    const { n } = (await e.DB.prepare("SELECT COUNT(*) AS n FROM oauth_refresh_tokens WHERE grant_id = ?")
      .bind(grant.grantId)
      .first<{ n: number }>())!;
    expect(n).toBe(1);
    expect((await grantState(grant.grantId)).revoked_reason).toBe("code_replay");
    // 49 replays, one end: the event follows the grant's own compare-and-set.
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toHaveLength(1);
    const winner = await json<TokenBody>(answers.find((r) => r.status === 200)!);
    expect((await refresh(grant, winner.refresh_token)).status).toBe(400);
  });
});

describe("client authentication", () => {
  it("client_secret_basic: the right secret redeems; a wrong one is 401 invalid_client with a Basic challenge", async () => {
    const client = await seedClient("client_secret_basic");
    const grant = await seedGrant({ client });
    const wrong = { ...client, secret: "mcs_wrong" };
    const refused = await redeem({ ...grant, client: wrong }, await seedCode(grant));
    expect(await oauthError(refused)).toEqual({ status: 401, error: "invalid_client" });
    expect(refused.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await redeem(grant, await seedCode(grant))).status).toBe(200);
    // RFC 6749 §2.3.1: id and secret are form-urlencoded inside Basic ("_" sent as %5F, "+" a space).
    const code = await seedCode(grant);
    const encoded = btoa(`${client.id.replace("_", "%5F")}:${client.secret!.replace("_", "%5F")}`);
    const form = {
      grant_type: "authorization_code",
      code: code.code,
      redirect_uri: REDIRECT,
      code_verifier: code.verifier,
    };
    expect((await postForm(TOKEN, form, { headers: { authorization: `Basic ${encoded}` } })).status).toBe(
      200,
    );
    const spaced = btoa(`${client.id}:+${client.secret}`);
    const refusedSpace = await postForm(
      TOKEN,
      { ...form, code: (await seedCode(grant)).code },
      {
        headers: { authorization: `Basic ${spaced}` },
      },
    );
    expect(refusedSpace.status).toBe(401);
  });

  it("client_secret_post: the right secret redeems; the secret sent as Basic, or none, is invalid_client", async () => {
    const client = await seedClient("client_secret_post");
    const grant = await seedGrant({ client });
    const asBasic = await redeem(
      { ...grant, client: { ...client, method: "client_secret_basic" } },
      await seedCode(grant),
    );
    expect(await oauthError(asBasic)).toEqual({ status: 401, error: "invalid_client" });
    const noSecret = await redeem({ ...grant, client: { ...client, method: "none" } }, await seedCode(grant));
    expect(await oauthError(noSecret)).toEqual({ status: 401, error: "invalid_client" });
    expect((await redeem(grant, await seedCode(grant))).status).toBe(200);
  });

  it("a public client presenting a secret, an unknown client, and no client are invalid_client", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const withSecret = await redeem(grant, code, { client_secret: "mcs_anything" });
    expect(await oauthError(withSecret)).toEqual({ status: 401, error: "invalid_client" });
    const unknown = await redeem(grant, code, { client_id: "mcp_01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expect(await oauthError(unknown)).toEqual({ status: 401, error: "invalid_client" });
    const none = await redeem(grant, code, { client_id: "" });
    expect(await oauthError(none)).toEqual({ status: 401, error: "invalid_client" });
    expect(withSecret.headers.get("www-authenticate")).toBeNull();
  });

  it("Basic and a body secret at once is invalid_request; malformed Basic is invalid_client", async () => {
    const client = await seedClient("client_secret_basic");
    const grant = await seedGrant({ client });
    const code = await seedCode(grant);
    const both = await redeem(grant, code, { client_secret: client.secret! });
    expect(await oauthError(both)).toEqual({ status: 400, error: "invalid_request" });
    const form = {
      grant_type: "authorization_code",
      code: code.code,
      redirect_uri: REDIRECT,
      code_verifier: code.verifier,
    };
    const malformed = await postForm(TOKEN, form, { headers: { authorization: "Basic !!!" } });
    expect(await oauthError(malformed)).toEqual({ status: 401, error: "invalid_client" });
    expect((await redeem(grant, code)).status).toBe(200);
  });
});

describe("the request", () => {
  it("JSON is invalid_request; a repeated parameter is invalid_request", async () => {
    const grant = await seedGrant();
    const code = await seedCode(grant);
    const body = {
      grant_type: "authorization_code",
      code: code.code,
      redirect_uri: REDIRECT,
      code_verifier: code.verifier,
      client_id: grant.client.id,
    };
    const asJson = await call("POST", TOKEN, { body, ip: freshIp() });
    expect(await oauthError(asJson)).toEqual({ status: 400, error: "invalid_request" });
    const twice = `${new URLSearchParams(body).toString()}&code=${code.code}`;
    const repeated = await call("POST", TOKEN, {
      rawBody: twice,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      ip: freshIp(),
    });
    expect(await oauthError(repeated)).toEqual({ status: 400, error: "invalid_request" });
    expect((await redeem(grant, code)).status).toBe(200);
  });

  it("another grant type is unsupported_grant_type; none is invalid_request", async () => {
    const client = await seedClient();
    const { form } = clientAuth(client);
    for (const grant_type of ["password", "client_credentials", "implicit"]) {
      expect(await oauthError(await postForm(TOKEN, { grant_type, ...form }))).toEqual({
        status: 400,
        error: "unsupported_grant_type",
      });
    }
    expect(await oauthError(await postForm(TOKEN, form))).toEqual({ status: 400, error: "invalid_request" });
  });

  it("a body over 16 KiB is 413 at the token and the revocation endpoint alike (both document it)", async () => {
    for (const [path, form] of [
      [TOKEN, { grant_type: "authorization_code", code: "x".repeat(17 * 1024) }],
      [REVOKE, { token: "x".repeat(17 * 1024) }],
    ] as const) {
      const res = await postForm(path, form);
      expect(res.status, path).toBe(413);
      expect((await json<{ error: string }>(res)).error).toBe("invalid_request");
    }
  });

  it("a client IP gets 120 token requests a minute, then 429 with Retry-After", async () => {
    const ip = freshIp();
    const form = { grant_type: "password" };
    const answers: number[] = [];
    for (let i = 0; i < 121; i += 1) answers.push((await postForm(TOKEN, form, { ip })).status);
    expect(answers.slice(0, 120).every((s) => s === 400)).toBe(true);
    const limited = await postForm(TOKEN, form, { ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answers[120]).toBe(429);
    // Another client's IP is not limited by it.
    expect((await postForm(TOKEN, form)).status).toBe(400);
  });
});
