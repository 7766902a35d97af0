/**
 * Refresh rotation and RFC 7009 revocation of MCP agents' grants (issue 37, docs/decisions/oauth-agents.md
 * "Tokens"): one successor per token (50 concurrent refreshes included), a rotated token presented again
 * ends the grant, scope narrowing only, the resource binding, and revocation by the grant's own client only.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshIp, json } from "../support/identity-helpers";
import {
  clientAuth,
  eventsOf,
  grantState,
  postForm,
  REVOKE,
  redeem,
  refresh,
  type SeededGrant,
  seedClient,
  seedCode,
  seedGrant,
  sha256b64url,
  type TokenBody,
} from "./oauth-token-fixtures";

const e = env as unknown as { DB: D1Database };

async function issued(grant: SeededGrant): Promise<TokenBody> {
  const res = await redeem(grant, await seedCode(grant));
  if (res.status !== 200) throw new Error(`redeem ${res.status} ${await res.text()}`);
  return json<TokenBody>(res);
}

async function errorOf(res: Response): Promise<[number, string]> {
  return [res.status, (await json<{ error: string }>(res)).error];
}

function claims(token: string): Record<string, unknown> {
  return JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
}

async function tokenRows(grantId: string): Promise<number> {
  const row = await e.DB.prepare("SELECT COUNT(*) AS n FROM oauth_refresh_tokens WHERE grant_id = ?")
    .bind(grantId)
    .first<{ n: number }>();
  return row!.n;
}

describe("refresh_token", () => {
  it("rotates: a new refresh token and access token each time, the old one no longer accepted", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const res = await refresh(grant, first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const second = await json<TokenBody>(res);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.refresh_token.startsWith(`mcr_${grant.grantId}.`)).toBe(true);
    expect(claims(second.access_token)).toMatchObject({
      gid: grant.grantId,
      kind: "agent",
      scope: grant.scope,
    });
    expect((await refresh(grant, second.refresh_token)).status).toBe(200);
    // Each refresh token lives 30 days from its issue.
    const hash = await sha256b64url(second.refresh_token);
    const row = await e.DB.prepare(
      "SELECT created_at, expires_at FROM oauth_refresh_tokens WHERE token_hash = ?",
    )
      .bind(hash)
      .first<{ created_at: string; expires_at: string }>();
    expect(Date.parse(row!.expires_at) - Date.parse(row!.created_at)).toBe(30 * 24 * 3600_000);
  });

  it("a rotated token presented again ends the grant (refresh_reuse): its successor dies too", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const second = await json<TokenBody>(await refresh(grant, first.refresh_token));
    expect(await errorOf(await refresh(grant, first.refresh_token))).toEqual([400, "invalid_grant"]);
    expect(await grantState(grant.grantId)).toMatchObject({
      revoked_reason: "refresh_reuse",
      revoked_by: null,
    });
    expect(await errorOf(await refresh(grant, second.refresh_token))).toEqual([400, "invalid_grant"]);
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toEqual([
      expect.objectContaining({ target: grant.grantId, method: "refresh_reuse" }),
    ]);
  });

  it("50 concurrent refreshes of one token: one successor; the 49 others are reuse and end the grant", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const ip = freshIp();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => refresh(grant, first.refresh_token, {}, ip)),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(49);
    // The code's token and exactly one successor.
    expect(await tokenRows(grant.grantId)).toBe(2);
    expect((await grantState(grant.grantId)).revoked_reason).toBe("refresh_reuse");
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toHaveLength(1);
  });

  it("scope narrows (the access token carries fewer) but never widens: invalid_scope", async () => {
    const grant = await seedGrant({ scope: "posts:read posts:write media:read" });
    const first = await issued(grant);
    const narrowed = await json<TokenBody>(
      await refresh(grant, first.refresh_token, { scope: "posts:read" }),
    );
    expect(narrowed.scope).toBe("posts:read");
    expect(claims(narrowed.access_token).scope).toBe("posts:read");
    for (const scope of ["posts:read leads:read", "site:code", "posts:readx"]) {
      expect(await errorOf(await refresh(grant, narrowed.refresh_token, { scope }))).toEqual([
        400,
        "invalid_scope",
      ]);
    }
    // Narrowing one access token narrows nothing else: the next refresh carries the grant's scopes.
    const full = await json<TokenBody>(await refresh(grant, narrowed.refresh_token));
    expect(full.scope).toBe("posts:read posts:write media:read");
  });

  it("another resource is invalid_target; the grant's own is accepted", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const other = await refresh(grant, first.refresh_token, { resource: "https://other.example/mcp" });
    expect(await errorOf(other)).toEqual([400, "invalid_target"]);
    const { RESOURCE } = await import("./oauth-token-fixtures");
    expect((await refresh(grant, first.refresh_token, { resource: RESOURCE() })).status).toBe(200);
  });

  it("another client's, an expired, an unknown and a malformed refresh token are invalid_grant and end nothing", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const thief = await seedGrant();
    expect(await errorOf(await refresh(thief, first.refresh_token))).toEqual([400, "invalid_grant"]);
    expect((await grantState(grant.grantId)).revoked_at).toBeNull();
    const unknown = `mcr_${grant.grantId}.${"A".repeat(43)}`;
    for (const token of [unknown, "mcr_garbage", "rt1.x.y", ""]) {
      const [status, error] = await errorOf(await refresh(grant, token));
      expect(status).toBe(400);
      expect(["invalid_grant", "invalid_request"]).toContain(error);
    }
    expect((await grantState(grant.grantId)).revoked_at).toBeNull();
    await e.DB.prepare("UPDATE oauth_refresh_tokens SET expires_at = ? WHERE grant_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), grant.grantId)
      .run();
    expect(await errorOf(await refresh(grant, first.refresh_token))).toEqual([400, "invalid_grant"]);
  });

  it("a revoked grant's refresh token, and one of a disabled account, are invalid_grant", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    await e.DB.prepare("UPDATE users SET status = 'disabled' WHERE id = ?").bind(grant.userId).run();
    expect(await errorOf(await refresh(grant, first.refresh_token))).toEqual([400, "invalid_grant"]);
    await e.DB.prepare("UPDATE users SET status = 'active' WHERE id = ?").bind(grant.userId).run();
    await e.DB.prepare("UPDATE oauth_grants SET revoked_at = ?, revoked_reason = 'person' WHERE id = ?")
      .bind(new Date().toISOString(), grant.grantId)
      .run();
    expect(await errorOf(await refresh(grant, first.refresh_token))).toEqual([400, "invalid_grant"]);
  });
});

describe("RFC 7009 revocation", () => {
  function revoke(grant: SeededGrant, token: string | null, extra: Record<string, string> = {}) {
    const auth = clientAuth(grant.client);
    const form = { ...(token === null ? {} : { token }), ...auth.form, ...extra };
    return postForm(REVOKE, form, { headers: auth.headers });
  }

  it("the client's refresh token ends the grant: 200, empty, no-store; the token stops working; an event", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const res = await revoke(grant, first.refresh_token, { token_type_hint: "refresh_token" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await grantState(grant.grantId)).toMatchObject({ revoked_reason: "client" });
    expect(await errorOf(await refresh(grant, first.refresh_token))).toEqual([400, "invalid_grant"]);
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toEqual([
      expect.objectContaining({ target: grant.grantId, method: "client" }),
    ]);
    // Revoking again is still 200 and writes nothing more.
    expect((await revoke(grant, first.refresh_token)).status).toBe(200);
    expect(await eventsOf(grant.userId, "oauth_grant.revoked")).toHaveLength(1);
  });

  it("the client's access token (signature verified) ends its grant whatever the hint", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    expect((await revoke(grant, first.access_token, { token_type_hint: "refresh_token" })).status).toBe(200);
    expect((await grantState(grant.grantId)).revoked_reason).toBe("client");
  });

  it("another client's token, a forged access token and an unknown token answer 200 and end nothing", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    const other = await seedGrant();
    expect((await revoke(other, first.refresh_token)).status).toBe(200);
    expect((await revoke(other, first.access_token)).status).toBe(200);
    const [h, p] = first.access_token.split(".");
    expect((await revoke(grant, `${h}.${p}.${"A".repeat(86)}`)).status).toBe(200);
    expect((await revoke(grant, "mcr_nothing")).status).toBe(200);
    expect((await grantState(grant.grantId)).revoked_at).toBeNull();
  });

  it("no token is invalid_request; a client that fails authentication is 401 invalid_client", async () => {
    const grant = await seedGrant();
    const first = await issued(grant);
    expect(await errorOf(await revoke(grant, null))).toEqual([400, "invalid_request"]);
    const client = await seedClient("client_secret_post");
    const confidential = await seedGrant({ client });
    const wrong = { ...confidential, client: { ...client, secret: "mcs_wrong" } };
    expect(await errorOf(await revoke(wrong, first.refresh_token))).toEqual([401, "invalid_client"]);
    expect((await grantState(grant.grantId)).revoked_at).toBeNull();
  });
});
