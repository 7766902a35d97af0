/**
 * The grants of MCP agents as people see and end them (issue 37, docs/decisions/oauth-agents.md "Tokens"):
 * the person's own listing and revocation, a site's for its members holding `integrations` (tenant walls:
 * another person's or another site's grant, a site the caller may not administer, all 404), what
 * `IdentityRpc.agentAccess` answers, and a staff route refusing an agent's access token.
 */
import { env } from "cloudflare:workers";
import { importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { IdentityRpc } from "../../src/lib/rpc";
import { call, json, signupVerified, worker } from "../support/identity-helpers";
import { createSiteAsOwner } from "../support/identity-sites";
import {
  eventsOf,
  grantState,
  RESOURCE,
  redeem,
  refresh,
  type SeededGrant,
  seedCode,
  seedGrant,
  type TokenBody,
} from "./oauth-token-fixtures";

const e = env as unknown as { DB: D1Database; JWT_SIGNING_KEYS: string; ISSUER: string };
const rpc = worker as unknown as IdentityRpc;

interface GrantItem {
  id: string;
  client_id: string;
  client_name: string;
  client_kind: string;
  site_id: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  user_id?: string;
}

async function addSiteMember(siteId: string, orgId: string, userId: string, role: string) {
  await e.DB.prepare(
    "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
  )
    .bind(siteId, userId, orgId, role, new Date().toISOString())
    .run();
}

/** An organization's owner, its two sites, and a person editing the first with two grants (one per site). */
async function setup() {
  const owner = await signupVerified();
  const org = await json<{ id: string }>(
    await call("POST", "/api/v1/auth/orgs", {
      token: owner.session.access_token,
      body: { name: "Agents Org", slug: `ao-${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  const siteId = await createSiteAsOwner(owner.session.user.id, org.id);
  const otherSiteId = await createSiteAsOwner(owner.session.user.id, org.id);
  const person = await signupVerified();
  await addSiteMember(siteId, org.id, person.session.user.id, "site_editor");
  const userId = person.session.user.id;
  const onSite = await seedGrant({ userId, siteId, orgId: org.id });
  const onOther = await seedGrant({ userId, siteId: otherSiteId, orgId: org.id });
  return { owner, orgId: org.id, siteId, otherSiteId, person, onSite, onOther };
}

async function tokensOf(grant: SeededGrant): Promise<TokenBody> {
  return json<TokenBody>(await redeem(grant, await seedCode(grant)));
}

describe("the person's grants", () => {
  it("lists the caller's live grants only, with client, site and scopes; no Bearer is 401", async () => {
    const { person, onSite, onOther } = await setup();
    const stranger = await seedGrant();
    const res = await call("GET", "/api/v1/auth/oauth/grants", { token: person.session.access_token });
    expect(res.status).toBe(200);
    const { items } = await json<{ items: GrantItem[] }>(res);
    expect(items.map((i) => i.id).sort()).toEqual([onSite.grantId, onOther.grantId].sort());
    expect(items.map((i) => i.id)).not.toContain(stranger.grantId);
    const item = items.find((i) => i.id === onSite.grantId)!;
    expect(item).toMatchObject({
      client_id: onSite.client.id,
      client_kind: "registered",
      site_id: onSite.siteId,
      scopes: onSite.scope.split(" "),
      last_used_at: null,
    });
    expect(item.client_name).toMatch(/^Agent /);
    expect((await call("GET", "/api/v1/auth/oauth/grants")).status).toBe(401);
  });

  it("DELETE ends the caller's grant (204, idempotent): its tokens stop, an event; it leaves the listing", async () => {
    const { person, onSite, onOther } = await setup();
    const tokens = await tokensOf(onSite);
    const t = person.session.access_token;
    expect((await call("DELETE", `/api/v1/auth/oauth/grants/${onSite.grantId}`, { token: t })).status).toBe(
      204,
    );
    expect(await grantState(onSite.grantId)).toMatchObject({
      revoked_reason: "person",
      revoked_by: person.session.user.id,
    });
    expect((await refresh(onSite, tokens.refresh_token)).status).toBe(400);
    expect(await eventsOf(person.session.user.id, "oauth_grant.revoked")).toEqual([
      expect.objectContaining({
        target: onSite.grantId,
        method: "person",
        actor_user_id: person.session.user.id,
      }),
    ]);
    expect((await call("DELETE", `/api/v1/auth/oauth/grants/${onSite.grantId}`, { token: t })).status).toBe(
      204,
    );
    // The person reads the use and the end in their security events.
    for (const type of ["oauth_grant.used", "oauth_grant.revoked"]) {
      const events = await call("GET", `/api/v1/auth/events?type=${type}`, { token: t });
      expect(events.status).toBe(200);
      const page = await json<{ items: { type: string; target: string | null }[] }>(events);
      expect(page.items).toEqual([expect.objectContaining({ type, target: onSite.grantId })]);
    }
    const { items } = await json<{ items: GrantItem[] }>(
      await call("GET", "/api/v1/auth/oauth/grants", { token: t }),
    );
    expect(items.map((i) => i.id)).toEqual([onOther.grantId]);
  });

  it("another person's grant answers exactly like a missing one (404) and stays live", async () => {
    const { onSite } = await setup();
    const intruder = await signupVerified();
    const t = intruder.session.access_token;
    const foreign = await call("DELETE", `/api/v1/auth/oauth/grants/${onSite.grantId}`, { token: t });
    const missing = await call("DELETE", "/api/v1/auth/oauth/grants/01ARZ3NDEKTSV4RRFFQ69G5FAV", {
      token: t,
    });
    const malformed = await call("DELETE", "/api/v1/auth/oauth/grants/not-an-id", { token: t });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(malformed.status).toBe(404);
    expect(foreign.headers.get("content-type")).toMatch(/problem\+json/);
    expect(await foreign.text()).toBe(await missing.text());
    expect((await grantState(onSite.grantId)).revoked_at).toBeNull();
  });
});

describe("a site's grants (members holding integrations)", () => {
  it("the organization's owner lists the site's grants, every person's, and no other site's", async () => {
    const { owner, siteId, onSite } = await setup();
    const res = await call("GET", `/api/v1/auth/sites/${siteId}/oauth-grants`, {
      token: owner.session.access_token,
    });
    expect(res.status).toBe(200);
    const { items } = await json<{ items: GrantItem[] }>(res);
    expect(items).toEqual([
      expect.objectContaining({ id: onSite.grantId, user_id: onSite.userId, site_id: siteId }),
    ]);
  });

  it("an editor without integrations, a stranger and a missing site all get the same 404; a bad id is 400", async () => {
    const { person, siteId } = await setup();
    const stranger = await signupVerified();
    const path = `/api/v1/auth/sites/${siteId}/oauth-grants`;
    const editor = await call("GET", path, { token: person.session.access_token });
    const foreign = await call("GET", path, { token: stranger.session.access_token });
    const missing = await call("GET", "/api/v1/auth/sites/01ARZ3NDEKTSV4RRFFQ69G5FAV/oauth-grants", {
      token: stranger.session.access_token,
    });
    expect([editor.status, foreign.status, missing.status]).toEqual([404, 404, 404]);
    expect(await foreign.text()).toBe(await missing.text());
    expect(await editor.text()).toBe(
      await (await call("GET", path, { token: stranger.session.access_token })).text(),
    );
    const bad = await call("GET", "/api/v1/auth/sites/nope/oauth-grants", {
      token: stranger.session.access_token,
    });
    expect(bad.status).toBe(400);
    const revoke = await call("DELETE", `${path}/01ARZ3NDEKTSV4RRFFQ69G5FAV`, {
      token: person.session.access_token,
    });
    expect(revoke.status).toBe(404);
  });

  it("the owner ends a site grant (site_member, by the owner, the person's event); another site's grant is 404", async () => {
    const { owner, person, siteId, onSite, onOther } = await setup();
    const t = owner.session.access_token;
    const tokens = await tokensOf(onSite);
    const wrongSite = await call("DELETE", `/api/v1/auth/sites/${siteId}/oauth-grants/${onOther.grantId}`, {
      token: t,
    });
    expect(wrongSite.status).toBe(404);
    expect((await grantState(onOther.grantId)).revoked_at).toBeNull();
    const res = await call("DELETE", `/api/v1/auth/sites/${siteId}/oauth-grants/${onSite.grantId}`, {
      token: t,
    });
    expect(res.status).toBe(204);
    expect(await grantState(onSite.grantId)).toMatchObject({
      revoked_reason: "site_member",
      revoked_by: owner.session.user.id,
    });
    expect((await refresh(onSite, tokens.refresh_token)).status).toBe(400);
    expect(await eventsOf(person.session.user.id, "oauth_grant.revoked")).toEqual([
      expect.objectContaining({
        target: onSite.grantId,
        method: "site_member",
        actor_user_id: owner.session.user.id,
      }),
    ]);
    const again = await call("DELETE", `/api/v1/auth/sites/${siteId}/oauth-grants/${onSite.grantId}`, {
      token: t,
    });
    expect(again.status).toBe(204);
    const { items } = await json<{ items: GrantItem[] }>(
      await call("GET", `/api/v1/auth/sites/${siteId}/oauth-grants`, { token: t }),
    );
    expect(items).toEqual([]);
  });
});

describe("IdentityRpc.agentAccess", () => {
  it("a live grant: active, the person's memberships of the site and its organization, scopes, display name", async () => {
    const { person, siteId, onSite } = await setup();
    const access = await rpc.agentAccess({ grant_id: onSite.grantId });
    expect(access).toMatchObject({
      grant_id: onSite.grantId,
      active: true,
      user_id: person.session.user.id,
      client_id: onSite.client.id,
      site_id: siteId,
      scopes: onSite.scope.split(" "),
      org_memberships: [],
    });
    expect(access!.site_memberships).toEqual([
      expect.objectContaining({ site_id: siteId, role: "site_editor" }),
    ]);
  });

  it("a revoked grant is inactive; a removed member has no memberships", async () => {
    const { person, siteId, onSite } = await setup();
    await e.DB.prepare("DELETE FROM site_memberships WHERE site_id = ? AND user_id = ?")
      .bind(siteId, person.session.user.id)
      .run();
    const removed = await rpc.agentAccess({ grant_id: onSite.grantId });
    expect(removed).toMatchObject({ active: true, site_memberships: [], org_memberships: [] });
    await call("DELETE", `/api/v1/auth/oauth/grants/${onSite.grantId}`, {
      token: person.session.access_token,
    });
    expect(await rpc.agentAccess({ grant_id: onSite.grantId })).toMatchObject({ active: false });
  });

  it("a locked or disabled account's grant is inactive while it is so", async () => {
    const { person, onSite } = await setup();
    const status = (value: string) =>
      e.DB.prepare("UPDATE users SET status = ? WHERE id = ?").bind(value, person.session.user.id).run();
    for (const value of ["locked", "disabled"]) {
      await status(value);
      expect(await rpc.agentAccess({ grant_id: onSite.grantId })).toMatchObject({ active: false });
    }
    await status("active");
    expect(await rpc.agentAccess({ grant_id: onSite.grantId })).toMatchObject({ active: true });
  });

  it("an unknown id and malformed input answer null", async () => {
    expect(await rpc.agentAccess({ grant_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" })).toBeNull();
    for (const input of [{ grant_id: "nope" }, { grant_id: 42 }, {}, null]) {
      expect(await rpc.agentAccess(input as unknown as { grant_id: string })).toBeNull();
    }
  });
});

describe("a staff route refuses an agent's access token", () => {
  async function sign(claims: Record<string, unknown>, typ: string, aud: string) {
    const { current } = JSON.parse(e.JWT_SIGNING_KEYS) as { current: { kid: string } };
    const key = await importJWK({ ...current, alg: "EdDSA" }, "EdDSA");
    const iat = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: current.kid, typ })
      .setIssuer(e.ISSUER)
      .setAudience(aud)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(key);
  }

  it("GET /api/v1/auth/me: 401 for an issued agent token, and for tokens of the staff audience that are not staff's", async () => {
    const { person, onSite } = await setup();
    const me = (token: string) => call("GET", "/api/v1/auth/me", { token });
    const agent = (await tokensOf(onSite)).access_token;
    expect((await me(agent)).status).toBe(401);
    const staff = { sub: person.session.user.id, sid: person.session.session_id };
    // The control: a token signed the same way with the staff claims is accepted.
    expect((await me(await sign({ ...staff, kind: "staff" }, "JWT", "site-platform"))).status).toBe(200);
    expect((await me(await sign({ ...staff, kind: "agent" }, "JWT", "site-platform"))).status).toBe(401);
    expect((await me(await sign({ ...staff }, "JWT", "site-platform"))).status).toBe(401);
    expect((await me(await sign({ ...staff, kind: "staff" }, "at+jwt", "site-platform"))).status).toBe(401);
    expect((await me(await sign({ ...staff, kind: "staff" }, "JWT", RESOURCE()))).status).toBe(401);
  });
});
