/**
 * The hosted sign-in pages as the identity Worker serves them: each page answers with the strict CSP and
 * the security headers, loads only its own scripts (nothing inline), labels every input, and keeps a
 * `next` parameter on this origin. Browser journeys through the same pages live in test/browser/sign-in.
 */
import { describe, expect, it } from "vitest";
import { safeNextPath } from "../../src/identity/pages/sign-in-next";
import { call, freshEmail, json, outbox, signupVerified } from "../support/identity-helpers";

const PAGES = [
  "/auth/sign-in",
  "/auth/sign-up",
  "/auth/confirm?email=a%40example.com",
  "/auth/magic-link",
  "/auth/magic-link?email=a%40example.com&code=abc",
  "/auth/password/reset",
  "/auth/password/reset?email=a%40example.com&code=abc",
  "/auth/emails/disown?token=t",
  "/auth/disown?token=t",
  "/auth/invitations/accept?token=t",
];

/** Paths that start with one slash but resolve, or re-resolve once normalised, on another origin. */
const DOT_SEGMENT_ESCAPES = [
  "/..//evil.example/x",
  "/.//evil.example/x",
  "/%2e%2e//evil.example/x",
  "/%2E//evil.example/x",
  "/a/..//evil.example/x",
  "/a/%2e%2e//evil.example/x",
  "/\\evil.example",
  "/\\/evil.example",
  "/%5c/evil.example/../..//evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/.\t./\n/evil.example",
  "https://evil.example/x",
  "http://identity.test.evil.example/x",
  "javascript:alert(1)",
  " /..//evil.example",
];

async function page(path: string) {
  const res = await call("GET", path);
  return { res, text: await res.text() };
}

/** Where the page's scripts will send a signed-in visitor. */
function nextOf(text: string): string | undefined {
  return /data-next="([^"]*)"/.exec(text)?.[1]?.replaceAll("&amp;", "&");
}

describe("GET /auth/* hosted sign-in pages", () => {
  it.each(PAGES)("%s answers 200 HTML with the strict CSP and no inline script", async (path) => {
    const { res, text } = await page(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const scripts = [...text.matchAll(/<script\b([^>]*)>/gi)];
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const [, attributes] of scripts) expect(attributes).toMatch(/\bsrc="\/auth\/assets\/[a-z-]+\.js"/);
    expect(text).not.toMatch(/\son[a-z]+=/i);
    expect(text).not.toMatch(/style=/i);
  });

  it.each(PAGES)("%s labels every visible input and serves the scripts it names", async (path) => {
    const { text } = await page(path);
    for (const [input] of text.matchAll(/<input\b[^>]*>/gi)) {
      const id = /\bid="([^"]+)"/.exec(input)?.[1];
      expect(id, input).toBeTruthy();
      expect(text).toContain(`<label for="${id}">`);
    }
    for (const [, src] of text.matchAll(/<script src="([^"]+)"/g)) {
      const asset = await call("GET", src!);
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get("content-type")).toContain("text/javascript");
    }
  });

  it("orders the sign-in form email, password, submit", async () => {
    const { text } = await page("/auth/sign-in");
    const form = /<form id="password-form"[\s\S]*?<\/form>/.exec(text)?.[0] ?? "";
    const order = [...form.matchAll(/<(input|button)\b[^>]*?(?:name="([a-z_]+)"|type="(submit)")/g)].map(
      (m) => m[2] ?? m[3],
    );
    expect(order).toEqual(["email", "password", "submit"]);
  });

  it("escapes what it echoes from the query", async () => {
    const { text } = await page("/auth/confirm?email=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    expect(text).not.toContain("<script>alert(1)");
    expect(text).toContain("&quot;&gt;&lt;script&gt;");
  });

  it("keeps a same-origin next path and ignores any other", async () => {
    const kept = await page(`/auth/sign-in?next=${encodeURIComponent("/auth/account?tab=keys#x")}`);
    expect(nextOf(kept.text)).toBe("/auth/account?tab=keys#x");
    for (const hostile of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
      "evil.example",
    ]) {
      const { text } = await page(`/auth/sign-in?next=${encodeURIComponent(hostile)}`);
      expect(nextOf(text), hostile).toBe("/auth/account");
    }
    // Issue 18 item 4: a path that only normalises into another origin (dot segments, encoded dots,
    // backslashes, control characters) is refused, on every page that takes next, before it is emitted.
    for (const hostile of DOT_SEGMENT_ESCAPES) {
      for (const path of ["/auth/sign-in", "/auth/sign-up", "/auth/magic-link", "/auth/password/reset"]) {
        const { text } = await page(`${path}?next=${encodeURIComponent(hostile)}`);
        expect(nextOf(text), `${path} ${hostile}`).toBe("/auth/account");
        expect(text, `${path} ${hostile}`).not.toContain("evil.example");
      }
    }
    // A same-origin path is emitted in its normalised form.
    const normalised = await page(`/auth/sign-in?next=${encodeURIComponent("/auth/x/../account?tab=keys")}`);
    expect(nextOf(normalised.text)).toBe("/auth/account?tab=keys");
    // A detour (sign-up, reset) carries the next path along.
    expect(kept.text).toContain(
      `href="/auth/sign-up?next=${encodeURIComponent("/auth/account?tab=keys#x")}"`,
    );
  });
});

describe("links identity mails open a page", () => {
  it("an invitation e-mail links the invitation page on the issuer", async () => {
    const owner = await signupVerified();
    const token = owner.session.access_token;
    const org = await json<{ id: string }>(
      await call("POST", "/api/v1/auth/orgs", {
        token,
        body: { name: "Pages Org", slug: `pages-${crypto.randomUUID().slice(0, 8)}` },
      }),
    );
    const email = freshEmail("invitee");
    const invited = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token,
      body: { email, role: "member" },
    });
    expect(invited.status).toBe(202);
    const link = new URL((await outbox(email)).find((m) => m.purpose === "invitation")?.link ?? "");
    expect(link.pathname).toBe("/auth/invitations/accept");
    expect(link.searchParams.get("token")).toBeTruthy();
    const { res, text } = await page(`${link.pathname}${link.search}`);
    expect(res.status).toBe(200);
    expect(text).toContain('src="/auth/assets/invitation-accept.js"');
  });
});

describe("safeNextPath", () => {
  it("allows a path on this origin only", () => {
    expect(safeNextPath("/sites/1?x=2")).toBe("/sites/1?x=2");
    expect(safeNextPath("/a/../b")).toBe("/b");
    // An encoded newline stays inside the path: the browser will not decode it into the authority.
    expect(safeNextPath("/%0a/x")).toBe("/%0a/x");
    // Normalised, then emitted as the normalised path; encoded backslashes stay inside the path.
    expect(safeNextPath("/a/./b/%2e%2e/c?q=1#h")).toBe("/a/c?q=1#h");
    expect(safeNextPath("/%5cevil.example")).toBe("/%5cevil.example");
    expect(safeNextPath("/auth/account")).toBe("/auth/account");
    for (const bad of DOT_SEGMENT_ESCAPES) expect(safeNextPath(bad), bad).toBe("/auth/account");
    for (const bad of [
      undefined,
      "",
      "//x.example",
      "/\\x.example",
      "http://x",
      " /a",
      `/${"a".repeat(3000)}`,
    ]) {
      expect(safeNextPath(bad), String(bad)).toBe("/auth/account");
    }
  });
});
