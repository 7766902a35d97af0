import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createOrg, createSite, type Session, uniqueEmail, verifiedUser } from "../support/platform";

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** An access token with someone's `sub` and `sid` that nobody signed. */
function forgedTokenFor(victim: Session): string {
  const header = base64url({ alg: "EdDSA", typ: "JWT", kid: "forged" });
  const payload = base64url({ sub: victim.user.id, sid: victim.session_id, exp: 4102444800 });
  return `${header}.${payload}.${base64url("not a signature")}`;
}

/** A victim whose cached context (no membership) went stale: the owner just added them to an org. */
async function victimWithStaleContext() {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token);
  const site = await createSite(owner.access_token, org.id);
  const victim = await verifiedUser();
  const read = () => call("GET", `/api/v1/sites/${site.id}`, { token: victim.access_token });
  expect((await read()).status).toBe(404);
  const added = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
    token: owner.access_token,
    body: { email: victim.user.email, role: "member" },
  });
  expect(added.status).toBe(201);
  // Someone else's change reaches the victim when the entry expires.
  expect((await read()).status).toBe(404);
  return { victim, read };
}

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

  it("a forged Bearer carrying a victim's sub does not drop the victim's cached context", async () => {
    const { victim, read } = await victimWithStaleContext();
    const signup = await call("POST", "/api/v1/auth/signup", {
      token: forgedTokenFor(victim),
      body: { email: uniqueEmail("bystander"), password: "correct horse battery staple 42" },
    });
    expect(signup.status).toBe(202);
    expect((await read()).status).toBe(404);
  });

  it("the holder's own successful write to identity drops their cached context at once", async () => {
    const { victim, read } = await victimWithStaleContext();
    await createOrg(victim.access_token);
    expect((await read()).status).toBe(200);
  });
});
