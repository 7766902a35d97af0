/**
 * The account's display name (issue 34): `PATCH /api/v1/auth/me {display_name}` sets it (strict body,
 * trimmed 1..120 characters, no control characters), `GET /api/v1/auth/me` shows it, and content reads it
 * with a write's grant (`IdentityRpc.siteGrant`) as the byline of the person's posts.
 */
import { describe, expect, it } from "vitest";
import { call, json, signupVerified } from "../support/identity-helpers";

interface Me {
  id: string;
  display_name: string | null;
}

describe("PATCH /api/v1/auth/me", () => {
  it("sets the display name (trimmed); GET shows it; none until set", async () => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const before = await json<Me>(await call("GET", "/api/v1/auth/me", { token }));
    expect(before.display_name).toBeNull();
    const res = await call("PATCH", "/api/v1/auth/me", { token, body: { display_name: "  Ada Lovelace " } });
    expect(res.status).toBe(200);
    expect((await json<Me>(res)).display_name).toBe("Ada Lovelace");
    const after = await json<Me>(await call("GET", "/api/v1/auth/me", { token }));
    expect(after).toMatchObject({ id: session.user.id, display_name: "Ada Lovelace" });
  });

  it.each([
    ["empty", { display_name: "   " }],
    ["too long", { display_name: "x".repeat(121) }],
    ["a control character", { display_name: "Ada\u0000Lovelace" }],
    ["a line break", { display_name: "Ada\nLovelace" }],
    ["not a string", { display_name: 7 }],
    ["missing", {}],
    ["an unknown field", { display_name: "Ada", email: "x@example.com" }],
  ])("400 BAD_REQUEST: %s, nothing changed", async (_, body) => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const res = await call("PATCH", "/api/v1/auth/me", { token, body });
    expect(res.status).toBe(400);
    expect((await json<{ code: string }>(res)).code).toBe("BAD_REQUEST");
    expect((await json<Me>(await call("GET", "/api/v1/auth/me", { token }))).display_name).toBeNull();
  });

  it("120 characters are accepted", async () => {
    const { session } = await signupVerified();
    const name = "é".repeat(120);
    const res = await call("PATCH", "/api/v1/auth/me", {
      token: session.access_token,
      body: { display_name: name },
    });
    expect(res.status).toBe(200);
    expect((await json<Me>(res)).display_name).toBe(name);
  });

  it("401 without a Bearer", async () => {
    const res = await call("PATCH", "/api/v1/auth/me", { body: { display_name: "Ada" } });
    expect(res.status).toBe(401);
  });
});
