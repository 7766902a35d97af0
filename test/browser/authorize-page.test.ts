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
import { authPost, gatewayCall, orgWithSite, verifiedPerson } from "../support/browser-api";

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
  const { email, password, token, slug } = await verifiedPerson(tag, "consent-page");
  const siteName = `Consent Site ${slug.slice(-6)}`;
  await orgWithSite(token, slug, { org: "Consent Org", site: siteName });
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
    // Focus starts on who is asking (a screen reader reads the client's name first).
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("consent-title");
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

  it("a metadata-document client shows its URL's origin, and its loopback redirect is warned about", async () => {
    const name = `consent-page-${randomBytes(4).toString("hex")}.json`;
    const documentUrl = `https://mcp-clients.test/${name}`;
    const control = (path: string, body: unknown) =>
      fetch(`${platform().sso.issuer}/__test/${path}`, { method: "PUT", body: JSON.stringify(body) });
    expect((await control("dns/mcp-clients.test", { A: ["93.184.216.34"] })).status).toBe(204);
    const document = {
      client_id: documentUrl,
      client_name: "Document Agent",
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
    expect((await control(`client-document/${name}`, document)).status).toBe(204);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    pageErrors.push({ page: "document client", errors });
    const { path } = authorizationPath({ client_id: documentUrl });
    await page.goto(`${gateway()}${path}`);
    await consentShown(page);
    expect(await page.locator("#client-name").textContent()).toBe("Document Agent");
    expect(await page.locator("#client-verified").textContent()).toBe("Unverified");
    expect(await page.locator("#client-origin").textContent()).toBe("https://mcp-clients.test");
    const warning = page.locator("#loopback-warning");
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toMatch(/Any program on your computer can claim this address/);
    await screenshot(page, "oauth-consent-document-client");
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

/** The TXT value that proves `domain` for `orgId` (the scheme of src/identity/sso/domain-proof.ts). */
async function proofValue(orgId: string, domain: string): Promise<string> {
  const bytes = new TextEncoder().encode(`platform-sso-domain-proof:v1\n${orgId}\n${domain}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `platform-verify=${Buffer.from(digest.slice(0, 16)).toString("hex")}`;
}

async function control(path: string, body: unknown, method = "POST") {
  const res = await fetch(`${platform().sso.issuer}/__test/${path}`, { method, body: JSON.stringify(body) });
  expect(res.status).toBe(204);
}

describe("the consent page with single sign-on", () => {
  it("a signed-out person of an SSO organization goes through the provider and comes back to the exact request", async () => {
    const owner = await person("consent-sso");
    const org = await gatewayCall<{ id: string }>("POST", "/api/v1/auth/orgs", {
      token: owner.token,
      body: { name: "Consent SSO", slug: `csso-${randomBytes(4).toString("hex")}` },
    });
    const domain = `consent-${randomBytes(4).toString("hex")}.test`;
    await control(`dns/_platform-verify.${domain}`, { TXT: [await proofValue(org.id, domain)] }, "PUT");
    const { issuer, client_id, client_secret } = platform().sso;
    const settings = {
      issuer,
      client_id,
      client_secret,
      domains: [domain],
      enforced: false,
      allow_passwords: true,
    };
    const put = (headers: Record<string, string>) =>
      fetch(`${gateway()}/api/v1/auth/orgs/${org.id}/sso`, {
        method: "PUT",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(settings),
      });
    expect((await put({})).status).toBe(428);
    const stepUp = (await outboxMessage(owner.email, "sensitive_action")).code ?? "";
    expect((await put({ "x-step-up-code": stepUp })).status).toBe(200);
    const email = `member-${randomBytes(4).toString("hex")}@${domain}`;
    const providerPassword = `idp-${randomBytes(6).toString("hex")}`;
    await control("account", { email, password: providerPassword, name: "Consent Member" });

    const context = await chromium.context();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    pageErrors.push({ page: "sso", errors });
    const { path } = authorizationPath();
    await page.goto(`${gateway()}${path}`);
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    await page.getByLabel("Work e-mail").fill(email);
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await page.waitForURL((url) => url.origin === platform().sso.issuer);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(providerPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/sso");
    await page.locator("#sso-register").waitFor({ state: "visible" });
    await page.getByLabel("Your name").fill("Consent Member");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((url) => `${url.pathname}${url.search}` === path);
    await consentShown(page);
    expect(await page.locator("#whoami").textContent()).toBe(email);
    expect(await page.locator("#client-name").textContent()).toBe("Page Test Agent");
    // A new member holds no site yet: nothing to approve, only Deny.
    expect(await page.locator("#no-sites").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Approve", exact: true }).isDisabled()).toBe(true);
  });
});
