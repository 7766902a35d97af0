import { describe, expect, it } from "vitest";
import { allowedOrigins } from "../../src/content/keys/admin";

const problem = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  expect.objectContaining({ status, code, ...extra });

describe("API key creation: the origin allowlist", () => {
  it("a secret key has no allowlist; sending one is 400 BAD_REQUEST", () => {
    expect(allowedOrigins("secret", undefined, ["posts:write"])).toEqual([]);
    expect(allowedOrigins("secret", [], ["posts:write"])).toEqual([]);
    expect(() => allowedOrigins("secret", ["https://a.test"], ["posts:write"])).toThrow(
      problem(400, "BAD_REQUEST", { detail: "allowed_origins applies to public keys only." }),
    );
  });

  it("a public key needs a non-empty list: 400 ALLOWED_ORIGINS_REQUIRED", () => {
    for (const origins of [undefined, []]) {
      expect(() => allowedOrigins("public", origins, ["posts:read"])).toThrow(
        problem(400, "ALLOWED_ORIGINS_REQUIRED"),
      );
    }
  });

  it("every entry is an exact origin: 400 INVALID_ORIGIN lists the others", () => {
    const origins = ["https://a.test", "http://*.b.test", "https://c.test/path"];
    expect(() => allowedOrigins("public", origins, ["posts:read"])).toThrow(
      problem(400, "INVALID_ORIGIN", { details: { invalid: ["http://*.b.test", "https://c.test/path"] } }),
    );
  });

  it("a public key carries only read scopes: 400 SCOPE_NOT_ALLOWED lists the others", () => {
    expect(() =>
      allowedOrigins("public", ["https://a.test"], ["posts:read", "posts:write", "export"]),
    ).toThrow(problem(400, "SCOPE_NOT_ALLOWED", { details: { forbidden: ["posts:write", "export"] } }));
  });

  it("origins are checked before scopes", () => {
    expect(() => allowedOrigins("public", ["nope"], ["posts:write"])).toThrow(problem(400, "INVALID_ORIGIN"));
  });

  it("keeps each origin once, normalized", () => {
    expect(
      allowedOrigins("public", ["https://a.test/", "https://a.test", "http://b.test:8080"], ["posts:read"]),
    ).toEqual(["https://a.test", "http://b.test:8080"]);
  });
});
