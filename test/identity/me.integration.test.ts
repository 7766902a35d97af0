/** `GET /v1/auth/me` (issue 23): the caller's account, factors, organizations and site memberships. */
import { describe, expect, it } from "vitest";
import { call, json, signupVerified, staffUser } from "../support/identity-helpers";

interface Me {
  id: string;
  email: string;
  factors: string[];
  organizations: { id: string; name: string; role: string; owner: boolean }[];
  site_memberships: unknown[];
}

describe("GET /v1/auth/me", () => {
  it("lists the factors present: a password, a confirmed TOTP and its recovery codes", async () => {
    const { session, email } = await staffUser();
    const res = await call("GET", "/api/v1/auth/me", { token: session.access_token });
    expect(res.status).toBe(200);
    const me = await json<Me>(res);
    expect(me).toMatchObject({ id: session.user.id, email, organizations: [], site_memberships: [] });
    expect(me.factors).toEqual(["password", "totp", "recovery_codes"]);
  });

  it("names each organization and the caller's role in it; another account sees only its own", async () => {
    const { session } = await signupVerified();
    const made = await call("POST", "/api/v1/auth/orgs", {
      token: session.access_token,
      body: { name: "Mine", slug: `me-${crypto.randomUUID().slice(0, 8)}` },
    });
    const org = await json<{ id: string; slug: string }>(made);
    const other = await signupVerified();
    const mine = await json<Me>(await call("GET", "/api/v1/auth/me", { token: session.access_token }));
    expect(mine.organizations).toEqual([
      { id: org.id, name: "Mine", slug: org.slug, role: "org_owner", owner: true },
    ]);
    const theirs = await json<Me>(
      await call("GET", "/api/v1/auth/me", { token: other.session.access_token }),
    );
    expect(theirs.organizations).toEqual([]);
    expect(theirs.factors).toEqual(["password"]);
  });

  it("401 UNAUTHENTICATED without a Bearer or with a bad one", async () => {
    for (const token of [undefined, "nope"]) {
      const res = await call("GET", "/api/v1/auth/me", token ? { token } : {});
      expect(res.status).toBe(401);
      expect((await json<{ code: string }>(res)).code).toBe("UNAUTHENTICATED");
    }
  });
});
