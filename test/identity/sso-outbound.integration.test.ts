/**
 * The OpenID provider requests through the real identity Worker and the outbound guard
 * (src/lib/safe-fetch.ts): a provider that stalls mid-answer or answers more than the cap makes the
 * configuration a 502 SSO_PROVIDER_UNAVAILABLE (the stall at the 5 s deadline: outbound-deadlines.security.test.ts),
 * never a hung request. The fake hosts (test/support/fakes/content.ts) resolve to public addresses.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { providerGuardOptions } from "../../src/identity/sso/outbound";
import { SSO_FETCH_TIMEOUT_MS } from "../../src/identity/sso/settings";
import { call, json, problem, signupVerified } from "../support/identity-helpers";
import { freshDomain, ssoSettings } from "../support/sso-helpers";

const e = env as unknown as Env;

async function ownerOfNewOrg() {
  const owner = await signupVerified();
  const res = await call("POST", "/api/v1/auth/orgs", {
    token: owner.session.access_token,
    body: { name: "Org", slug: `o-${crypto.randomUUID().slice(0, 8)}` },
  });
  return { token: owner.session.access_token, orgId: (await json<{ id: string }>(res)).id };
}

describe("PUT /api/v1/auth/orgs/{id}/sso: the issuer's discovery under the outbound guard", () => {
  it("in the test projects the deadline is the harness's (TEST_OUTBOUND_DEADLINE_MS), in a deploy 5 s", () => {
    // The fakes answer from the vitest process, which busy cores starve; the 5 s deadline itself is tested
    // in the timing project (outbound-deadlines.security.test.ts), where nothing else runs.
    expect(e.TEST_OUTBOUND_DEADLINE_MS).toBe("30000");
    expect(providerGuardOptions(e).timeoutMs).toBe(30_000);
    expect(providerGuardOptions({ ...e, TEST_OUTBOUND_DEADLINE_MS: undefined }).timeoutMs).toBe(
      SSO_FETCH_TIMEOUT_MS,
    );
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
