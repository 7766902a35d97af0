/**
 * The OpenID provider requests through the real identity Worker and the outbound guard
 * (src/lib/safe-fetch.ts): a provider that stalls mid-answer or answers more than the cap makes the
 * configuration a 502 SSO_PROVIDER_UNAVAILABLE within the guard's deadline (SSO_FETCH_TIMEOUT_MS),
 * never a hung request. The fake hosts (test/support/fakes/content.ts) resolve to public addresses.
 */
import { describe, expect, it } from "vitest";
import { SSO_FETCH_TIMEOUT_MS } from "../../src/identity/sso/settings";
import { call, json, problem, signupVerified } from "../support/identity-helpers";
import { freshDomain, ssoSettings } from "../support/sso-helpers";

async function ownerOfNewOrg() {
  const owner = await signupVerified();
  const res = await call("POST", "/api/v1/auth/orgs", {
    token: owner.session.access_token,
    body: { name: "Org", slug: `o-${crypto.randomUUID().slice(0, 8)}` },
  });
  return { token: owner.session.access_token, orgId: (await json<{ id: string }>(res)).id };
}

describe("PUT /api/v1/auth/orgs/{id}/sso: the issuer's discovery under the outbound guard", () => {
  it("a discovery answer that stalls mid-body is a 502 SSO_PROVIDER_UNAVAILABLE at the deadline", async () => {
    const { token, orgId } = await ownerOfNewOrg();
    const started = Date.now();
    const res = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token,
      body: ssoSettings(freshDomain(), { issuer: "https://img.test/stalled" }),
    });
    expect(res.status).toBe(502);
    expect((await problem(res)).code).toBe("SSO_PROVIDER_UNAVAILABLE");
    expect(Date.now() - started).toBeLessThan(SSO_FETCH_TIMEOUT_MS + 4000);
  });

  it("a discovery answer above the size cap is a 502 SSO_PROVIDER_UNAVAILABLE", async () => {
    const { token, orgId } = await ownerOfNewOrg();
    const res = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token,
      body: ssoSettings(freshDomain(), { issuer: "https://img.test/oversized" }),
    });
    expect(res.status).toBe(502);
    expect((await problem(res)).code).toBe("SSO_PROVIDER_UNAVAILABLE");
  });

  it("issuers on names only private resolvers answer are refused before any request", async () => {
    const { token, orgId } = await ownerOfNewOrg();
    for (const issuer of ["https://idp.localdomain", "https://idp.hidden.onion"]) {
      const res = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
        token,
        body: ssoSettings(freshDomain(), { issuer }),
      });
      expect((await problem(res)).code, issuer).toBe("SSO_ISSUER_INVALID");
    }
  });
});
