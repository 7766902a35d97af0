/**
 * The consent page of MCP agents (`/auth/authorize`, issue 37) in a real Chromium through the gateway: a
 * signed-out person goes through sign-in and back to the exact request; signed in, they see the client's
 * name (unverified), the exact redirect URI, the site picker and the scopes in words, `leads:read`
 * unchecked; Approve lands on the redirect URI with `code`, `state` and `iss`; Deny with
 * `error=access_denied`; a client that cannot be trusted is refused on the page; the page refuses to be
 * framed; no CSP refusal or script error on the way.
 */
import { createHash, randomBytes } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { browserPerFile, outboxMessage, platform, screenshot } from "../support/browser";
import { authPost, gatewayCall } from "../support/browser-api";

const chromium = browserPerFile();
const gateway = () => platform().urls.gateway;
/** The agent's redirect URI: a loopback address nothing listens on; Chromium's request to it is caught. */
const CALLBACK = "http://127.0.0.1:9/consent-callback";
const pageErrors: { page: string; errors: string[] }[] = [];

afterEach(() => {
  for (const { page, errors } of pageErrors.splice(0)) expect(errors, page).toEqual([]);
});

interface Person {
  email: string;
  password: string;
  token: string;
  siteName: string;
}

async function person(tag: string): Promise<Person> {
  const unique = `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `${unique}@browser.example`;
  const password = `consent-page-${unique}-passphrase`;
  await gatewayCall("POST", "/api/v1/auth/signup", { body: { email, password } });
  const { code } = await outboxMessage(email, "email_verify");
  const { access_token: token } = await gatewayCall<{ access_token: string }>(
    "POST",
    "/api/v1/auth/email/verify/confirm",
    { body: { email, code } },
  );
  const org = await gatewayCall<{ id: string }>("POST", "/api/v1/auth/orgs", {
    token,
    body: { name: "Consent Org", slug: unique },
  });
  const siteName = `Consent Site ${unique.slice(-6)}`;
  await gatewayCall("POST", "/api/v1/sites", {
    token,
    body: { org_id: org.id, name: siteName, slug: unique, default_language: "en" },
  });
  return { email, password, token, siteName };
}

let clientId = "";

beforeAll(async () => {
  const registered = await authPost<{ client_id: string }>("/oauth/register", {
    client_name: "Page Test Agent",
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });
  expect(registered.status).toBe(201);
  clientId = registered.body.client_id;
});

function authorizationPath(overrides: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: `state-${randomBytes(8).toString("hex")}`,
    scope: "posts:read posts:write leads:read",
    ...overrides,
  });
  return { path: `/auth/authorize?${query}`, state: query.get("state")! };
}

/** Catches the browser's arrival at the agent's redirect URI (nothing listens there). */
async function callbackOf(context: BrowserContext): Promise<() => Promise<URL>> {
  let resolve: (url: URL) => void = () => undefined;
  const landed = new Promise<URL>((r) => {
    resolve = r;
  });
  await context.route(`${CALLBACK}**`, async (route) => {
    resolve(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: "text/plain", body: "the agent got its answer" });
  });
  return () => landed;
}

/** Password, then (no second factor yet) the e-mailed code on the magic-link page, which keeps `next`. */
async function signIn(page: Page, who: Person) {
  await page.getByLabel("E-mail", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("button", { name: "E-mail me a sign-in link" }).click();
  await page.waitForURL((url) => url.pathname === "/auth/magic-link");
  const { code } = await outboxMessage(who.email, "magic_link");
  await page.locator("#code-form input").fill(code ?? "");
  await page.locator("#code-form").getByRole("button", { name: "Sign in" }).click();
}

async function consentShown(page: Page) {
  await page.locator("#consent").waitFor({ state: "visible", timeout: 15_000 });
}

describe("the consent page", () => {
  let context: BrowserContext;
  let owner: Person;

  it("signed out: through sign-in and back to the exact request; the client, redirect URI, unverified label, site picker and scopes in words; Approve lands with code, state and iss", async () => {
    owner = await person("consent-page");
    context = await chromium.context();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    pageErrors.push({ page: "approve", errors });
    const landed = await callbackOf(context);
    const { path, state } = authorizationPath();
    await page.goto(`${gateway()}${path}`);
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe(path);
    await signIn(page, owner);
    await page.waitForURL((url) => `${url.pathname}${url.search}` === path);
    await consentShown(page);

    expect(await page.locator("#client-name").textContent()).toBe("Page Test Agent");
    expect(await page.locator("#client-verified").isVisible()).toBe(true);
    expect(await page.locator("#client-verified").textContent()).toBe("Unverified");
    expect(await page.locator("#redirect-uri").textContent()).toBe(CALLBACK);
    expect(await page.locator("#client-id").textContent()).toBe(clientId);
    expect(await page.locator("#whoami").textContent()).toBe(owner.email);
    const options = await page.locator("#f-site option").allTextContents();
    expect(options.some((o) => o.startsWith(owner.siteName))).toBe(true);
    await page
      .getByLabel("Site the agent may act on")
      .selectOption({ label: options.find((o) => o.startsWith(owner.siteName))! });
    // The scopes in words, each a checkbox; leads never preselected.
    const read = page.getByRole("checkbox", { name: /Read every post and page of the site/ });
    const write = page.getByRole("checkbox", { name: /Create and edit posts and pages/ });
    const leads = page.getByRole("checkbox", { name: /Read the leads of the site's forms/ });
    expect([await read.isChecked(), await write.isChecked(), await leads.isChecked()]).toEqual([
      true,
      true,
      false,
    ]);
    expect(await leads.isEnabled()).toBe(true);
    expect(await page.locator("#loopback-warning").isHidden()).toBe(true);
    await screenshot(page, "oauth-consent");

    await page.getByRole("button", { name: "Approve", exact: true }).click();
    const url = await landed();
    expect(`${url.origin}${url.pathname}`).toBe(CALLBACK);
    expect(url.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBe(state);
    expect(url.searchParams.get("iss")).toBe(gateway());
    const grants = await gatewayCall<{ items: { scopes: string[] }[] }>("GET", "/api/v1/auth/oauth/grants", {
      token: owner.token,
    });
    expect(grants.items.map((g) => g.scopes.sort())).toEqual([["posts:read", "posts:write"]]);
  });

  it("signed in already: Deny lands with error=access_denied, the state and iss, and no grant is made", async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    pageErrors.push({ page: "deny", errors });
    await context.unroute(`${CALLBACK}**`);
    const landed = await callbackOf(context);
    const { path, state } = authorizationPath();
    await page.goto(`${gateway()}${path}`);
    await consentShown(page);
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    const url = await landed();
    expect(url.searchParams.get("error")).toBe("access_denied");
    expect(url.searchParams.get("state")).toBe(state);
    expect(url.searchParams.get("iss")).toBe(gateway());
    expect(url.searchParams.get("code")).toBeNull();
    const grants = await gatewayCall<{ items: unknown[] }>("GET", "/api/v1/auth/oauth/grants", {
      token: owner.token,
    });
    expect(grants.items).toHaveLength(1);
  });

  it("a redirect URI the client did not register is refused on the page, never followed", async () => {
    const page = await context.newPage();
    let wentAway = false;
    await context.route("https://evil.example/**", async (route) => {
      wentAway = true;
      await route.fulfill({ status: 200, body: "no" });
    });
    const { path } = authorizationPath({ redirect_uri: "https://evil.example/cb" });
    await page.goto(`${gateway()}${path}`);
    await page.locator("#refused").waitFor({ state: "visible", timeout: 15_000 });
    expect(await page.locator("#refused-text").textContent()).toMatch(/not one it registered/);
    expect(await page.locator("#consent").isHidden()).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/auth/authorize");
    expect(wentAway).toBe(false);
  });

  it("the notice's link revokes the agent without signing in, and signs the browser out", async () => {
    const { link } = await outboxMessage(owner.email, "oauth_grant_notice");
    expect(link).toContain("/auth/authorize/undo?token=");
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    pageErrors.push({ page: "undo", errors });
    await page.goto(link!.replace(/^https?:\/\/[^/]+/, gateway()));
    await page.getByRole("button", { name: "Revoke the agent and sign out everywhere" }).click();
    await page.locator("#status").filter({ hasText: "The agent was revoked" }).waitFor();
    // Every session ended: the consent page now sends this browser to sign in.
    const { path } = authorizationPath();
    await page.goto(`${gateway()}${path}`);
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    const refused = await fetch(`${gateway()}/api/v1/auth/oauth/grants`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(refused.status).toBe(401);
  });

  it("refuses to be framed by another origin", async () => {
    const page = await context.newPage();
    const { path } = authorizationPath();
    const framed = `${gateway()}${path}`;
    // A page of another origin (the content worker's port) framing the consent page.
    await context.route(`${platform().urls.content}/framer`, (route) =>
      route.fulfill({
        status: 200,
        contentType: "text/html",
        body: `<!doctype html><iframe id="f" src="${framed.replace(/&/g, "&amp;")}" width="800" height="600"></iframe>`,
      }),
    );
    await page.goto(`${platform().urls.content}/framer`);
    await page.waitForTimeout(1500);
    const child = page.frames().find((f) => f !== page.mainFrame());
    expect(child).toBeDefined();
    // The frame shows Chromium's refusal, never the page: no consent, no approve button to click through.
    expect(await child!.locator("#consent, #approve, #loading").count()).toBe(0);
  });
});
