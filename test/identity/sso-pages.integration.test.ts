/** The hosted pages' single sign-on (issue 24 §1): "Continue with SSO" on sign-in, and the callback's landing page. */
import { describe, expect, it } from "vitest";
import { call } from "../support/identity-helpers";

describe("SSO on the hosted pages", () => {
  it("the sign-in page offers Continue with SSO by e-mail, and its script asks /sso/start as JSON", async () => {
    const page = await call("GET", "/auth/sign-in");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="sso-form"');
    expect(html).toContain("Continue with SSO");
    const script = await (await call("GET", "/auth/assets/sign-in.js")).text();
    expect(script).toContain('"/sso/start?email="');
    expect(script).toContain("authorization_url");
  });

  it("the landing page has the registration and link forms, hidden until its script reads the fragment", async () => {
    const page = await call("GET", "/auth/sso");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<form id="sso-register" method="post" hidden>/);
    expect(html).toMatch(/<form id="sso-link" method="post" hidden>/);
    expect(html).toContain("/auth/assets/sso.js");
    const script = await call("GET", "/auth/assets/sso.js");
    expect(script.status).toBe(200);
    const text = await script.text();
    expect(text).toContain('"/sso/register"');
    expect(text).toContain('"/sso/link"');
  });
});
