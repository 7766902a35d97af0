/**
 * The hosted account page as the identity Worker serves it: headers (strict CSP and the rest), a document
 * with nothing inline, labelled fields, one heading per section, and a script that calls only operations
 * the identity API really has. Its behaviour in a browser is test/browser/account.test.ts.
 */
import { describe, expect, it } from "vitest";
import { PAGE_CSP, PAGE_HEADERS } from "../../src/identity/pages/layout";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  signupVerified,
} from "../support/identity-helpers";

async function page(token?: string) {
  const res = await call("GET", "/auth/account", token ? { token } : {});
  return { res, text: await res.text() };
}

describe("GET /auth/account", () => {
  it("answers HTML with the strict CSP and every security header of the hosted pages", async () => {
    const { res } = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) {
      expect(res.headers.get(name), name).toBe(value);
    }
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).not.toContain("unsafe-inline");
  });

  it("has nothing inline: scripts and styles only from /auth/assets, no handlers, no style attributes", async () => {
    const { text } = await page();
    const scripts = [...text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1])).toEqual([
      "/auth/assets/common.js",
      "/auth/assets/account.js",
    ]);
    for (const m of scripts) expect(m[2]!.trim()).toBe("");
    expect(text).not.toMatch(/<style\b/i);
    expect(text).not.toMatch(/\sstyle=/i);
    expect(text).not.toMatch(/\son[a-z]+=/i);
    const sheets = [...text.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
    expect(sheets).toEqual(["/auth/assets/pages.css", "/auth/assets/account.css"]);
  });

  it("is accessible by construction: a live region, one heading per section, every field labelled, named buttons", async () => {
    const { text } = await page();
    expect(text).toMatch(/<p id="status" class="status" aria-live="polite"/);
    expect(text).toContain("<h1>Your account</h1>");
    const sections = [
      ...text.matchAll(
        /<section id="([^"]+)" aria-labelledby="([^"]+)">\s*<h2 id="([^"]+)"[^>]*>([^<]+)<\/h2>/g,
      ),
    ];
    expect(sections.map((m) => m[4])).toEqual([
      "Your name",
      "E-mail addresses",
      "Two-factor authentication",
      "Passkeys",
      "Password",
      "Sessions",
      "Connected agents",
      "Recent security activity",
      "Your data",
      "Delete your account",
    ]);
    for (const m of sections) expect(m[2]).toBe(m[3]);
    const inputs = [...text.matchAll(/<input id="([^"]+)"/g)].map((m) => m[1]!);
    expect(inputs.length).toBeGreaterThanOrEqual(5);
    for (const id of inputs) expect(text, id).toContain(`<label for="${id}">`);
    const codeInputs = inputs.filter((id) => id.endsWith("code"));
    for (const id of codeInputs) {
      expect(text).toMatch(new RegExp(`<input id="${id}"[^>]*autocomplete="one-time-code"`));
    }
    for (const m of text.matchAll(/<button\b[^>]*>([^<]*)<\/button>/g)) expect(m[1]!.trim()).not.toBe("");
    for (const m of text.matchAll(/<table id="[^"]+">\s*<caption[^>]*>([^<]+)<\/caption>/g)) {
      expect(m[1]!.trim()).not.toBe("");
    }
    expect([...text.matchAll(/<caption/g)].length).toBe(5);
  });

  it("is the same document for everyone: no personal data is rendered by the server", async () => {
    const { session, email } = await signupVerified();
    const anonymous = await page();
    const signedIn = await page(session.access_token);
    expect(signedIn.text).toBe(anonymous.text);
    expect(signedIn.text).not.toContain(email);
  });
});

describe("the account page's assets", () => {
  it("serves account.js and account.css with their types, nosniff and an ETag", async () => {
    for (const [name, type] of [
      ["account.js", "text/javascript"],
      ["account.css", "text/css"],
    ] as const) {
      const res = await call("GET", `/auth/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const etag = res.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]+"$/);
      const again = await call("GET", `/auth/assets/${name}`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
    }
  });

  it("the script writes API data as text only (no innerHTML, no eval) and keeps the token out of storage", async () => {
    // The page runs its own script and the shared one (the session's refresh lives there).
    const js = [
      await (await call("GET", "/auth/assets/account.js")).text(),
      await (await call("GET", "/auth/assets/common.js")).text(),
    ].join("\n");
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(js).not.toMatch(/localStorage|sessionStorage|document\.cookie/);
    expect(js).toContain("textContent");
  });

  it("the script calls only operations the identity API documents, with the methods it documents", async () => {
    // The page runs its own script and the shared one (the session's refresh lives there).
    const js = [
      await (await call("GET", "/auth/assets/account.js")).text(),
      await (await call("GET", "/auth/assets/common.js")).text(),
    ].join("\n");
    const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(
      await call("GET", "/openapi.json"),
    );
    // What the page calls (method, path in the script as bundled, the documented path).
    const used: [string, string, string][] = [
      ["post", '"/refresh"', "/api/v1/auth/refresh"],
      ["get", '"/emails"', "/api/v1/auth/emails"],
      ["post", '"/emails"', "/api/v1/auth/emails"],
      ["post", '"/emails/verify"', "/api/v1/auth/emails/verify"],
      ["post", "/primary`", "/api/v1/auth/emails/{id}/primary"],
      ["delete", '"DELETE", `/emails/', "/api/v1/auth/emails/{id}"],
      ["get", '"/mfa/methods"', "/api/v1/auth/mfa/methods"],
      ["post", '"POST", "/mfa/totp"', "/api/v1/auth/mfa/totp"],
      ["post", '"/mfa/totp/confirm"', "/api/v1/auth/mfa/totp/confirm"],
      ["delete", '"DELETE", "/mfa/totp"', "/api/v1/auth/mfa/totp"],
      ["post", '"/mfa/recovery-codes/generate"', "/api/v1/auth/mfa/recovery-codes/generate"],
      ["get", '"GET", "/mfa/passkey"', "/api/v1/auth/mfa/passkey"],
      ["post", '"/mfa/passkey/register/begin"', "/api/v1/auth/mfa/passkey/register/begin"],
      ["post", '"/mfa/passkey/register/finish"', "/api/v1/auth/mfa/passkey/register/finish"],
      ["delete", '"DELETE", `/mfa/passkey/', "/api/v1/auth/mfa/passkey/{id}"],
      ["get", '"GET", "/sessions"', "/api/v1/auth/sessions"],
      ["delete", '"DELETE", `/sessions/', "/api/v1/auth/sessions/{id}"],
      ["delete", '"DELETE", "/sessions?keep_current=true"', "/api/v1/auth/sessions"],
      ["delete", '"DELETE", "/sessions"', "/api/v1/auth/sessions"],
      ["post", '"POST", "/account/export"', "/api/v1/auth/account/export"],
      ["delete", '"DELETE", "/account"', "/api/v1/auth/account"],
    ];
    for (const [method, fragment, path] of used) {
      expect(js, fragment).toContain(fragment);
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    // Step-up codes travel where the spec puts them: header for all but the primary change (body `code`).
    expect(js).toContain('"x-step-up-code"');
    // esbuild prints `undefined` as `void 0`.
    expect(js).toContain("code ? { code } : void 0");
  });

  it("shows the deletion's grace period and the export, and names sessions by browser and system", async () => {
    const { text } = await page();
    expect(text).toContain("For 30 days you can change your mind");
    expect(text).toContain('id="data-export"');
    expect(text).toContain('<label for="delete-confirm">');
    const js = await (await call("GET", "/auth/assets/account.js")).text();
    expect(js).toContain("s.device");
    expect(js).not.toContain("s.user_agent");
    const chrome =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
    const email = freshEmail("device");
    const ip = freshIp();
    expect(
      (await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip })).status,
    ).toBe(202);
    const confirmed = await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email, code: await latestCode(email, "email_verify") },
      headers: { "user-agent": chrome },
      ip,
    });
    const { access_token } = await json<{ access_token: string }>(confirmed);
    const listed = await json<{ items: { device: string | null; user_agent: string | null }[] }>(
      await call("GET", "/api/v1/auth/sessions", { token: access_token }),
    );
    expect(listed.items.map((i) => [i.device, i.user_agent])).toEqual([["Chrome on Linux", chrome]]);
  });
});

describe("GET /auth/account/restore", () => {
  it("is a hosted page with the strict CSP that cancels a deletion through the documented operation", async () => {
    const res = await call("GET", "/auth/account/restore");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    const text = await res.text();
    expect(text).toContain('<script src="/auth/assets/account-restore.js" defer></script>');
    expect(text).toContain('<label for="f-email">');
    expect(text).toContain('<label for="f-code">');
    const js = await (await call("GET", "/auth/assets/account-restore.js")).text();
    expect(js).toContain('"/account/deletion/cancel"');
    expect(js).not.toMatch(/innerHTML|localStorage|sessionStorage/);
    const signIn = await (await call("GET", "/auth/sign-in")).text();
    expect(signIn).toContain('href="/auth/account/restore');
  });
});
