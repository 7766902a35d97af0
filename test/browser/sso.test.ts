import { describe, expect, it } from "vitest";
import {
  browserPerFile,
  freshClientIp,
  outboxMessage,
  platform,
  screenshot,
  watchPageErrors,
} from "../support/browser";

const PASSWORD = "a-long-and-unusual-passphrase-42";
const chromium = browserPerFile();

const gateway = () => platform().urls.gateway;

/** The TXT value that proves `domain` for `orgId` (the scheme of src/identity/sso/domain-proof.ts). */
async function proofValue(orgId: string, domain: string): Promise<string> {
  const bytes = new TextEncoder().encode(`platform-sso-domain-proof:v1\n${orgId}\n${domain}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `platform-verify=${Buffer.from(digest.slice(0, 16)).toString("hex")}`;
}
const rand = () => crypto.randomUUID().slice(0, 8);

async function api(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${gateway()}/api/v1/auth${path}`, {
    method,
    headers: {
      "cf-connecting-ip": freshClientIp(),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

async function control(path: string, body: unknown, method = "POST") {
  const res = await fetch(`${platform().sso.issuer}/__test/${path}`, { method, body: JSON.stringify(body) });
  expect(res.status).toBe(204);
}

/** An owner whose organization signs in through the local provider, with a proved domain. */
async function ssoOrganization() {
  const email = `owner-${rand()}@example.com`;
  expect((await api("POST", "/signup", { body: { email, password: PASSWORD } })).status).toBe(202);
  const code = (await outboxMessage(email, "email_verify")).code;
  const session = await api("POST", "/email/verify/confirm", { body: { email, code } });
  const token = String(session.body.access_token);
  const org = await api("POST", "/orgs", { token, body: { name: "Browser SSO", slug: `bsso-${rand()}` } });
  const orgId = String(org.body.id);
  const domain = `browser-${rand()}.test`;
  await control(`dns/_platform-verify.${domain}`, { TXT: [await proofValue(orgId, domain)] }, "PUT");
  const { issuer, client_id, client_secret } = platform().sso;
  const settings = {
    issuer,
    client_id,
    client_secret,
    domains: [domain],
    enforced: false,
    allow_passwords: true,
  };
  const first = await api("PUT", `/orgs/${orgId}/sso`, { token, body: settings });
  expect(first.status).toBe(428);
  const stepUp = (await outboxMessage(email, "sensitive_action")).code ?? "";
  const set = await api("PUT", `/orgs/${orgId}/sso`, {
    token,
    body: settings,
    headers: { "x-step-up-code": stepUp },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return { orgId, domain };
}

describe("single sign-on in the browser", () => {
  it("Continue with SSO, the provider's page, account creation, then the account page", async () => {
    const { domain } = await ssoOrganization();
    const email = `person-${rand()}@${domain}`;
    const providerPassword = `idp-${rand()}-${rand()}`;
    await control("account", { email, password: providerPassword, name: "Browser Person" });

    const context = await chromium.context();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await page.goto(`${gateway()}/auth/sign-in`);
    await page.getByLabel("Work e-mail").fill(email);
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await page.waitForURL((url) => url.origin === platform().sso.issuer);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(providerPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/sso");
    await page.locator("#sso-register").waitFor({ state: "visible" });
    expect(page.url()).not.toContain("register=");
    await screenshot(page, "sso-register");
    await page.getByLabel("Your name").fill("Browser Person");
    await page.getByLabel("Password (optional)").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/account");
    await expect.poll(() => page.locator("#whoami").textContent(), { timeout: 15_000 }).toBe(email);
    expect(errors).toEqual([]);
  });
});
