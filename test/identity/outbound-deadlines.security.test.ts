/**
 * Identity's outbound deadlines at their production values: this file runs in the `timing` project
 * (vitest.config.ts), which has no TEST_OUTBOUND_DEADLINE_MS binding (src/identity/core/deadlines.ts) and
 * runs when nothing else does, so a deadline measured here is the provider's, not the machine's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { SSO_FETCH_TIMEOUT_MS } from "../../src/identity/sso/settings";
import { call, json, problem, signupVerified } from "../support/identity-helpers";
import { freshDomain, ssoSettings } from "../support/sso-helpers";

const e = env as unknown as Env;

describe("identity's outbound deadlines, as deployed", () => {
  it("the timing project has no TEST_OUTBOUND_DEADLINE_MS binding", () => {
    expect(e.TEST_OUTBOUND_DEADLINE_MS).toBeUndefined();
  });

  it("PUT /orgs/{id}/sso: a discovery answer that stalls mid-body is a 502 SSO_PROVIDER_UNAVAILABLE at the 5 s deadline", async () => {
    const owner = await signupVerified();
    const org = await call("POST", "/api/v1/auth/orgs", {
      token: owner.session.access_token,
      body: { name: "Org", slug: `o-${crypto.randomUUID().slice(0, 8)}` },
    });
    const orgId = (await json<{ id: string }>(org)).id;
    const started = Date.now();
    const res = await call("PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
      token: owner.session.access_token,
      body: ssoSettings(freshDomain(), { issuer: "https://img.test/stalled" }),
    });
    expect(res.status).toBe(502);
    expect((await problem(res)).code).toBe("SSO_PROVIDER_UNAVAILABLE");
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(SSO_FETCH_TIMEOUT_MS);
    expect(took).toBeLessThan(SSO_FETCH_TIMEOUT_MS + 4000);
  });
});
