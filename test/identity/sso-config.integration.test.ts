/**
 * Organization SSO configuration (issue 24 §1): owners read, set (step-up) and remove (step-up) one
 * OpenID provider; the issuer is discovered through the SSRF guard; the client secret is sealed at rest;
 * vouched domains count only once their DNS TXT proof is seen, for one organization at a time.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, problem, signupVerified, withStepUp } from "../support/identity-helpers";
import { IDP_CLIENT, IDP_ISSUER } from "../support/oidc-constants";
import { dnsZone, freshDomain, proveDomain, ssoOrg, ssoSettings } from "../support/sso-helpers";

const db = () => (env as unknown as { DB: D1Database }).DB;

async function org(token: string) {
  const res = await call("POST", "/api/v1/auth/orgs", {
    token,
    body: { name: "Org", slug: `o-${crypto.randomUUID().slice(0, 8)}` },
  });
  return (await json<{ id: string }>(res)).id;
}

interface View {
  configured: boolean;
  issuer: string | null;
  client_id: string | null;
  enforced: boolean;
  redirect_uri: string;
  domains: { domain: string; verified: boolean; txt_name: string; txt_value: string }[];
}

describe("SSO configuration", () => {
  it("an owner sets it with a step-up code: issuer discovered, domain proved, secret sealed and never shown", async () => {
    const { orgId, domain, owner } = await ssoOrg();
    const res = await call("GET", `/api/v1/auth/orgs/${orgId}/sso`, { token: owner.session.access_token });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(IDP_CLIENT.client_secret);
    const view = JSON.parse(text) as View;
    expect(view).toMatchObject({ configured: true, issuer: IDP_ISSUER, client_id: IDP_CLIENT.client_id });
    expect(view.redirect_uri).toMatch(/\/api\/v1\/auth\/sso\/callback$/);
    expect(view.domains).toEqual([
      expect.objectContaining({ domain, verified: true, txt_name: `_platform-verify.${domain}` }),
    ]);
    const row = await db()
      .prepare("SELECT client_secret_sealed FROM org_sso WHERE org_id = ?")
      .bind(orgId)
      .first<{ client_secret_sealed: string }>();
    expect(row?.client_secret_sealed).toMatch(/^v1\./);
    expect(row?.client_secret_sealed).not.toContain(IDP_CLIENT.client_secret);
  });

  it("without the step-up code nothing is stored (428), and a wrong code is 401", async () => {
    const owner = await signupVerified();
    const orgId = await org(owner.session.access_token);
    const body = ssoSettings(freshDomain());
    await dnsZone("idp.test", { A: ["93.184.216.34"] });
    const first = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
      body,
    });
    expect((await problem(first)).code).toBe("STEP_UP_REQUIRED");
    const wrong = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
      body,
      headers: { "x-step-up-code": "000000" },
    });
    expect((await problem(wrong)).code).toBe("CODE_INVALID");
    const view = await json<View>(
      await call("GET", `/api/v1/auth/orgs/${orgId}/sso`, { token: owner.session.access_token }),
    );
    expect(view.configured).toBe(false);
  });

  it("a member who is not an owner gets 403, a stranger the opaque 404, a bad id 400", async () => {
    const { orgId, owner } = await ssoOrg();
    const member = await signupVerified();
    const added = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
      token: owner.session.access_token,
      body: { email: member.email, role: "org_admin" },
    });
    expect(added.status).toBe(201);
    const asMember = await call("GET", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: member.session.access_token,
    });
    expect((await problem(asMember)).code).toBe("FORBIDDEN");
    const stranger = await signupVerified();
    const asStranger = await call("GET", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: stranger.session.access_token,
    });
    const missing = await call("GET", `/api/v1/auth/orgs/01J0000000000000000000000A/sso`, {
      token: stranger.session.access_token,
    });
    expect(asStranger.status).toBe(404);
    expect(await asStranger.json()).toEqual(await missing.json());
    const del = await call("DELETE", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: stranger.session.access_token,
    });
    expect(del.status).toBe(404);
    const bad = await call("GET", "/api/v1/auth/orgs/nope/sso", { token: stranger.session.access_token });
    expect((await problem(bad)).code).toBe("BAD_ORG");
  });

  it("refuses issuers that are not public HTTPS before any step-up (SSRF guard); no localhost outside development", async () => {
    const owner = await signupVerified();
    const orgId = await org(owner.session.access_token);
    for (const issuer of [
      "http://localhost:9000",
      "http://idp.test",
      "https://private.test",
      "https://metadata.test",
      "https://127.0.0.1",
      "https://10.0.0.1",
      "https://user:pw@idp.test",
      "https://intranet",
    ]) {
      const res = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
        token: owner.session.access_token,
        body: ssoSettings(freshDomain(), { issuer }),
      });
      expect((await problem(res)).code, issuer).toBe("SSO_ISSUER_INVALID");
    }
  });

  it("a domain is proved for one organization at a time: another organization's claim stays unproved", async () => {
    const first = await ssoOrg();
    const owner = await signupVerified();
    const orgId = await org(owner.session.access_token);
    await proveDomain(orgId, first.domain);
    const set = await withStepUp(owner.email, "PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
      body: ssoSettings(first.domain),
    });
    expect(set.status).toBe(200);
    expect((await json<View>(set)).domains).toEqual([expect.objectContaining({ verified: false })]);
  });

  it("a domain without its TXT record stays unproved until the record appears and is read again", async () => {
    const owner = await signupVerified();
    const orgId = await org(owner.session.access_token);
    const domain = freshDomain();
    await dnsZone("idp.test", { A: ["93.184.216.34"] });
    const set = await withStepUp(owner.email, "PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
      body: ssoSettings(domain),
    });
    const view = await json<View>(set);
    expect(view.domains[0]?.verified).toBe(false);
    await dnsZone(`_platform-verify.${domain}`, { TXT: ["platform-verify=not-this-one"] });
    const still = await call("POST", `/api/v1/auth/orgs/${orgId}/sso/domains/verify`, {
      token: owner.session.access_token,
    });
    expect((await json<View>(still)).domains[0]?.verified).toBe(false);
    await dnsZone(`_platform-verify.${domain}`, { TXT: [view.domains[0]!.txt_value] });
    const proved = await call("POST", `/api/v1/auth/orgs/${orgId}/sso/domains/verify`, {
      token: owner.session.access_token,
    });
    expect((await json<View>(proved)).domains[0]?.verified).toBe(true);
  });

  it("removal needs the step-up code, then the configuration and its domains are gone", async () => {
    const { orgId, owner } = await ssoOrg();
    const first = await call("DELETE", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
    });
    expect(first.status).toBe(428);
    const removed = await withStepUp(owner.email, "DELETE", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
    });
    expect(removed.status).toBe(204);
    const view = await json<View>(
      await call("GET", `/api/v1/auth/orgs/${orgId}/sso`, { token: owner.session.access_token }),
    );
    expect(view).toMatchObject({ configured: false, domains: [] });
  });
});
