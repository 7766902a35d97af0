/**
 * The security events (issue 18, item 5) through the gateway: the owner reads the account's own events,
 * an organization's admins read the organization's, a stranger gets the organization's 404.
 */
import { describe, expect, it } from "vitest";
import { call, createOrg, verifiedUser } from "../support/platform";

interface Page {
  items: { type: string; method: string | null }[];
  next_cursor: string | null;
}

describe("security events behind the gateway", () => {
  it("serves the caller's events and the organization's, behind the same walls", async () => {
    const owner = await verifiedUser();
    const stranger = await verifiedUser();
    const mine = await call<Page>("GET", "/api/v1/auth/events", { token: owner.access_token });
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((i) => i.type)).toContain("sign_in_succeeded");
    const org = await createOrg(owner.access_token);
    const added = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: owner.access_token,
      body: { email: stranger.user.email, role: "org_member" },
    });
    expect(added.status).toBe(201);
    const orgPage = await call<Page>("GET", `/api/v1/auth/orgs/${org.id}/events`, {
      token: owner.access_token,
    });
    expect(orgPage.status).toBe(200);
    expect(orgPage.body.items.map((i) => i.type)).toEqual(["member_added"]);
    const asMember = await call("GET", `/api/v1/auth/orgs/${org.id}/events`, {
      token: stranger.access_token,
    });
    expect(asMember.status).toBe(403);
    const outsider = await verifiedUser();
    const asOutsider = await call("GET", `/api/v1/auth/orgs/${org.id}/events`, {
      token: outsider.access_token,
    });
    expect(asOutsider.status).toBe(404);
    expect((await call("GET", "/api/v1/auth/events")).status).toBe(401);
  });
});

describe("TOTP enrolment's QR code behind the gateway", () => {
  it("answers the caller's pending enrolment as an SVG, nothing without one, 401 without a session", async () => {
    const owner = await verifiedUser();
    const none = await call("GET", "/api/v1/auth/mfa/totp/qr", { token: owner.access_token });
    expect(none.status).toBe(404);
    const started = await call<{ otpauth_uri: string }>("POST", "/api/v1/auth/mfa/totp", {
      token: owner.access_token,
    });
    expect(started.status).toBe(200);
    const qr = await call<{ svg: string }>("GET", "/api/v1/auth/mfa/totp/qr", { token: owner.access_token });
    expect(qr.status).toBe(200);
    expect(qr.body.svg).toMatch(/^<svg[\s>]/);
    expect((await call("GET", "/api/v1/auth/mfa/totp/qr")).status).toBe(401);
  });
});
