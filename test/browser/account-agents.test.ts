/**
 * The account page's connected agents (issue 37, the credential rule) in a real Chromium against the whole
 * platform: a person signed in in the browser connects an MCP agent through the public API (RFC 7591
 * registration, the consent API with the page's own access token, the code redeemed with PKCE S256), the
 * page lists it (client name marked unverified, site, scopes, times), Disconnect ends the grant (the agent's
 * refresh is refused, the listing is empty), and the page reports no script error or CSP refusal.
 */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  browserPerTest,
  freshClientIp,
  freshEmail,
  newContext,
  platform,
  signUpInPage,
  watchPageErrors,
} from "../support/browser";
import { authPost, gatewayCall } from "../support/browser-api";

const browser = browserPerTest();
const REDIRECT_URI = "http://127.0.0.1:9/callback";
const gateway = () => platform().urls.gateway;
const resource = () => `${gateway()}/v1/mcp`;

async function tokenEndpoint(form: Record<string, string>) {
  const res = await fetch(`${gateway()}/api/v1/auth/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": freshClientIp() },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** An agent connected on `siteId` by the person holding `token`, with `posts:read` (a read needs no step-up). */
async function connectAgent(token: string, siteId: string) {
  const registered = await authPost<{ client_id: string }>("/oauth/register", {
    client_name: "Browser agent",
    redirect_uris: [REDIRECT_URI],
    token_endpoint_auth_method: "none",
  });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const opened = await authPost<{ consent_id: string; csrf_token: string }>(
    "/oauth/consents",
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s",
      scope: "posts:read",
      resource: resource(),
    },
    { token },
  );
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const approved = await authPost<{ redirect: string }>(
    `/oauth/consents/${opened.body.consent_id}/approve`,
    { csrf_token: opened.body.csrf_token, site_id: siteId, scopes: ["posts:read"] },
    { token },
  );
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const code = new URL(approved.body.redirect).searchParams.get("code")!;
  const redeemed = await tokenEndpoint({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: resource(),
  });
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
  return { clientId, refresh: redeemed.body.refresh_token! };
}

describe("the account page's connected agents", () => {
  it("lists the person's agent with its client, site and scopes, and Disconnect ends the grant", async () => {
    const context = await newContext(browser());
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    let bearer = "";
    page.on("request", (req) => {
      const auth = req.headers().authorization;
      if (auth?.startsWith("Bearer ")) bearer = auth.slice(7);
    });
    const email = freshEmail("agents");
    await signUpInPage(page, email, "correct-horse-battery-staple-agents-42");
    await page.goto(`${platform().urls.identity}/auth/account`);
    await page.locator("#account").waitFor({ state: "visible" });
    await expect.poll(() => page.locator("#agents-empty").isVisible()).toBe(true);

    const slug = `agents-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const org = await gatewayCall<{ id: string }>("POST", "/api/v1/auth/orgs", {
      token: bearer,
      body: { name: "Agents Org", slug },
    });
    const site = await gatewayCall<{ id: string }>("POST", "/api/v1/sites", {
      token: bearer,
      body: { org_id: org.id, name: "Agents Site", slug, default_language: "en" },
    });
    const agent = await connectAgent(bearer, site.id);

    await page.reload();
    await page.locator("#account").waitFor({ state: "visible" });
    const row = page.locator("#agent-table tbody tr");
    await expect.poll(() => row.count()).toBe(1);
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("Browser agent");
    expect(text).toContain("Unverified");
    // The site by its name and host, as the person knows it (not its id).
    expect(text).toContain("Agents Site");
    expect(text).toContain(slug);
    expect(text).toContain("posts:read");
    expect(await row.locator("th, td").count()).toBe(6);
    expect(await page.locator("#agents-empty").isVisible()).toBe(false);

    await page.getByRole("button", { name: /^Disconnect Browser agent/ }).click();
    await expect
      .poll(async () => (await page.locator("#status").textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/Browser agent was disconnected/);
    await expect.poll(() => row.count()).toBe(0);
    expect(await page.locator("#agents-empty").isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("agents-title");

    // The grant is ended: its refresh token mints nothing, and the API lists no grant.
    const refreshed = await tokenEndpoint({
      grant_type: "refresh_token",
      refresh_token: agent.refresh,
      client_id: agent.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
    const listed = await gatewayCall<{ items: unknown[] }>("GET", "/api/v1/auth/oauth/grants", {
      token: bearer,
    });
    expect(listed.items).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
