import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * The edge caches what identity says about a session for at most 30 s: a revoked session's token stops
 * working at the edge within that bound, and the holder's own new organization works at once.
 */
describe("edge context cache", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("makes a just-created organization usable on the holder's next request", async () => {
    const owner = await verifiedUser();
    // Prime the cache with the context that has no organization yet.
    expect(
      (await call("GET", "/api/v1/sites/batch?ids=01JAAAAAAAAAAAAAAAAAAAAAAA", { token: owner.access_token }))
        .status,
    ).toBe(200);
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    expect(site.org_id).toBe(org.id);
  });

  it("stops a revoked session's token at the edge within 30 seconds", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const token = owner.access_token;
    expect((await call("GET", `/api/v1/sites/${site.id}`, { token })).status).toBe(200);

    const revoke = await call("DELETE", `/api/v1/auth/sessions/${owner.session_id}`, { token });
    expect(revoke.status).toBe(204);
    // Identity refuses the token at once.
    expect((await call("GET", "/api/v1/auth/sessions", { token })).status).toBe(401);

    vi.useFakeTimers({ now: Date.now() + 31_000, toFake: ["Date"] });
    const after = await call("GET", `/api/v1/sites/${site.id}`, { token });
    expect(after.status).toBe(401);
  });
});
