/**
 * Organization SSO through the gateway only (issue 24 §1): an owner configures the organization's
 * OpenID provider (a real `oidc-provider` as https://idp.test) with a DNS-proved domain; a person from
 * that domain signs in through it and completes the spec's `POST /v1/auth/sso/register` (served under
 * `/api/v1/auth/`); once the organization enforces SSO, the owner's ordinary session no longer carries
 * it at the edge, while the member's SSO session does.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { proofValue } from "../../src/identity/sso/domain-proof";
import { testIp } from "../support/client-ip";
import { cookieOf, dnsZone, followProvider, fragmentToken, idpAccount } from "../support/oidc-browser";
import { IDP_CLIENT, IDP_ISSUER } from "../support/oidc-constants";
import {
  BASE,
  call,
  createOrg,
  createSite,
  outboxCode,
  type Session,
  verifiedUser,
} from "../support/platform";

async function withStepUp(email: string, method: string, path: string, token: string, body?: unknown) {
  const first = await call(method, path, { token, body });
  if (first.status !== 428) return first;
  const code = await outboxCode(email, "sensitive_action");
  return call(method, path, { token, body, headers: { "x-step-up-code": code } });
}

describe("organization SSO through the gateway", () => {
  it("configure, sign in through the provider, register, and enforcement at the edge", async () => {
    const ownerEmail = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const owner = await verifiedUser(ownerEmail);
    const org = await createOrg(owner.access_token, "SSO Co");
    const domain = `e2e-${crypto.randomUUID().slice(0, 8)}.test`;
    await dnsZone("idp.test", { A: ["93.184.216.34"] });
    await dnsZone(`_platform-verify.${domain}`, { TXT: [await proofValue(org.id, domain)] });
    const settings = {
      issuer: IDP_ISSUER,
      ...IDP_CLIENT,
      domains: [domain],
      enforced: false,
      allow_passwords: true,
    };
    const set = await withStepUp(
      ownerEmail,
      "PUT",
      `/api/v1/auth/orgs/${org.id}/sso`,
      owner.access_token,
      settings,
    );
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ configured: true, domains: [{ domain, verified: true }] });
    expect(JSON.stringify(set.body)).not.toContain(IDP_CLIENT.client_secret);
    await createSite(owner.access_token, org.id);

    const email = `person-${crypto.randomUUID().slice(0, 6)}@${domain}`;
    await idpAccount({ email, name: "Person" });
    const ip = testIp();
    const start = await exports.default.fetch(
      `${BASE}/api/v1/auth/sso/start?email=${encodeURIComponent(email)}`,
      {
        headers: { "cf-connecting-ip": ip },
        redirect: "manual",
      },
    );
    expect(start.status).toBe(303);
    const callbackPath = await followProvider(start.headers.get("location") ?? "");
    const back = await exports.default.fetch(`${BASE}${callbackPath}`, {
      headers: { "cf-connecting-ip": ip, cookie: `svc_sso=${cookieOf(start, "svc_sso")}` },
      redirect: "manual",
    });
    expect(back.status).toBe(303);
    const registration_token = fragmentToken(back.headers.get("location") ?? "", "register");
    const registered = await call<Session>("POST", "/api/v1/auth/sso/register", {
      body: { registration_token, display_name: "Person", password: "a-long-and-unusual-passphrase-42" },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.user.email).toBe(email);
    const orgs = await call<{ items: { id: string; role: string }[] }>("GET", "/api/v1/auth/orgs", {
      token: registered.body.access_token,
    });
    expect(orgs.body.items).toEqual([expect.objectContaining({ id: org.id, role: "org_member" })]);

    const enforced = await withStepUp(
      ownerEmail,
      "PUT",
      `/api/v1/auth/orgs/${org.id}/sso`,
      owner.access_token,
      {
        ...settings,
        enforced: true,
      },
    );
    expect(enforced.status).toBe(200);
    const refused = await call("POST", "/api/v1/sites", {
      token: owner.access_token,
      body: {
        org_id: org.id,
        name: "Site",
        slug: `s-${crypto.randomUUID().slice(0, 8)}`,
        default_language: "en",
      },
    });
    expect(refused.status).not.toBe(201);
    expect([403, 404]).toContain(refused.status);
  });
});
