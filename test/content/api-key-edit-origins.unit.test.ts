/**
 * A public key's allowed origins (issue 35): exact origins, and over https one leading wildcard label, never
 * `*` alone nor directly under a public suffix (the public suffix list of `tldts`, private section included).
 * Each rule at, below and above its edge.
 */
import { describe, expect, it } from "vitest";
import { allowedOrigins } from "../../src/content/keys/admin";
import { normalizeAllowedOrigin, originAllowed } from "../../src/content/keys/origins";

const WILD = "https://*.my-project.pages.dev";

describe("a wildcard entry", () => {
  it("is accepted over https with one leading label, below a registrable domain (a port kept)", () => {
    for (const [entry, stored] of [
      [WILD, WILD],
      ["https://*.my-project.pages.dev/", WILD],
      ["https://*.example.com", "https://*.example.com"],
      ["https://*.example.co.uk", "https://*.example.co.uk"],
      ["https://*.a.example.com", "https://*.a.example.com"],
      ["https://*.example.com:8443", "https://*.example.com:8443"],
      ["https://*.example.test", "https://*.example.test"],
    ]) {
      expect(normalizeAllowedOrigin(entry!), entry).toEqual({ origin: stored });
    }
  });

  it("is refused directly under a public suffix, ICANN's or a private one (*.pages.dev, *.com, *.co.uk, *.github.io)", () => {
    for (const entry of [
      "https://*.pages.dev",
      "https://*.com",
      "https://*.co.uk",
      "https://*.github.io",
      "https://*.test",
      "https://*.localhost",
    ]) {
      expect(normalizeAllowedOrigin(entry), entry).toEqual({ refused: "public_suffix" });
    }
  });

  it("is refused as `*` alone, over http, deeper than the first label, twice, partial, with a path, or over an IP", () => {
    for (const entry of [
      "*",
      "https://*",
      "http://*.my-project.pages.dev",
      "https://a.*.my-project.pages.dev",
      "https://*.*.my-project.pages.dev",
      "https://ab*.my-project.pages.dev",
      "https://*ab.my-project.pages.dev",
      "https://*.my-project.pages.dev/path",
      "https://*.my-project.pages.dev?x=1",
      "https://*.203.0.113.9",
      "https://*.[::1]",
      "*.my-project.pages.dev",
    ]) {
      expect(normalizeAllowedOrigin(entry), entry).toEqual({ refused: "invalid" });
    }
  });
});

describe("matching a request's Origin", () => {
  it("a wildcard matches exactly one more label over https on the same port; never the bare name, two labels, http", () => {
    expect(originAllowed([WILD], "https://abc.my-project.pages.dev")).toBe(true);
    expect(originAllowed([WILD], "https://feature-1-x.my-project.pages.dev")).toBe(true);
    expect(originAllowed([WILD], "https://my-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "https://a.b.my-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "http://abc.my-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "https://abc.my-project.pages.dev:8443")).toBe(false);
    expect(originAllowed([WILD], "https://abcmy-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "https://abc.other-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "https://.my-project.pages.dev")).toBe(false);
    expect(originAllowed([WILD], "null")).toBe(false);
    expect(originAllowed(["https://*.example.com:8443"], "https://a.example.com:8443")).toBe(true);
    expect(originAllowed(["https://*.example.com:8443"], "https://a.example.com")).toBe(false);
  });

  it("an exact entry matches itself only (http too, as before)", () => {
    expect(originAllowed(["http://localhost:5173"], "http://localhost:5173")).toBe(true);
    expect(originAllowed(["http://localhost:5173"], "http://localhost:5174")).toBe(false);
    expect(originAllowed(["https://my-project.pages.dev"], "https://abc.my-project.pages.dev")).toBe(false);
  });
});

describe("the allowlist of a new key", () => {
  it("keeps wildcards with exact entries; refuses with INVALID_ORIGIN naming every bad entry and the public-suffix ones", () => {
    expect(allowedOrigins("public", [WILD, "https://a.test", `${WILD}/`], ["posts:read"])).toEqual([
      WILD,
      "https://a.test",
    ]);
    expect(() =>
      allowedOrigins("public", ["https://*.pages.dev", "*", "https://*.co.uk", WILD], ["posts:read"]),
    ).toThrow(
      expect.objectContaining({
        status: 400,
        code: "INVALID_ORIGIN",
        details: {
          invalid: ["https://*.pages.dev", "*", "https://*.co.uk"],
          public_suffix: ["https://*.pages.dev", "https://*.co.uk"],
        },
      }),
    );
  });
});
