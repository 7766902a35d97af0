/**
 * Issue 37's journey: an AI agent connects to `/v1/mcp` the way MCP clients do, with the official MCP
 * TypeScript SDK's OAuth client in Node and the person's consent in Chromium, against the platform
 * `npm start` runs. Two clients, both registration ways:
 * - a 2026-07-28 client (`@modelcontextprotocol/client` 2.x) named by a Client ID Metadata Document (an
 *   https URL the identity worker fetches; here served on the fake internet);
 * - a 2025-11-25 client (`@modelcontextprotocol/sdk` 1.x) that registers itself (RFC 7591).
 * Each discovers the authorization server from the 401, sends the person through sign-in and the consent
 * page, lists the tools, creates a post as the person, and loses access when the grant is revoked.
 */
import {
  Client as ModernClient,
  OAuthError as ModernOAuthError,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorized,
} from "@modelcontextprotocol/client";
import { UnauthorizedError as LegacyUnauthorized } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserPerFile, platform } from "../support/browser";
import { authPost, gatewayCall, orgWithSite, verifiedPerson } from "../support/browser-api";

const chromium = browserPerFile();
const gateway = () => platform().urls.gateway;
/** Where the agents' authorization responses go: a loopback address nothing listens on; Chromium's request is caught. */
const CALLBACK = "http://127.0.0.1:9/callback";

interface Person {
  email: string;
  password: string;
  token: string;
  siteId: string;
  /** The person's TOTP secret: an owner signs in with a second factor. */
  totpSecret: string;
}

function totpAt(secret: string, offsetSteps: number): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** A person with an organization and a site, made through the API (the consent is what the page shows). */
async function person(tag: string): Promise<Person> {
  const { email, password, token, slug } = await verifiedPerson(tag, "agent-consent");
  // Posts are bylined with the person's display name (an agent writes as the person).
  await gatewayCall("PATCH", "/api/v1/auth/me", { token, body: { display_name: "Agent Owner" } });
  // A member of an organization signs in with a second factor (428 MFA_NOT_ENROLLED otherwise).
  const enroll = await authPost<{ secret: string }>("/mfa/totp", {}, { token });
  expect(enroll.status).toBe(200);
  const confirmed = await authPost("/mfa/totp/confirm", { code: totpAt(enroll.body.secret, 0) }, { token });
  expect(confirmed.status).toBe(200);
  const { siteId } = await orgWithSite(token, slug, { org: "Agent Org", site: "Agent Site" });
  return { email, password, token, siteId, totpSecret: enroll.body.secret };
}

/** What an OAuth client provider keeps between the SDK's calls (as an agent would on disk). */
function memoryProvider(options: { clientMetadataUrl?: string; name: string }) {
  const store: {
    client?: Record<string, unknown>;
    tokens?: Record<string, unknown>;
    verifier?: string;
    authorizationUrl?: URL;
  } = {};
  const provider = {
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    get redirectUrl() {
      return CALLBACK;
    },
    get clientMetadata() {
      return {
        client_name: options.name,
        redirect_uris: [CALLBACK],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => store.client,
    saveClientInformation: (info: Record<string, unknown>) => {
      store.client = info;
    },
    tokens: () => store.tokens,
    saveTokens: (tokens: Record<string, unknown>) => {
      store.tokens = tokens;
    },
    redirectToAuthorization: (url: URL) => {
      store.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier: string) => {
      store.verifier = verifier;
    },
    codeVerifier: () => {
      if (!store.verifier) throw new Error("no code verifier saved");
      return store.verifier;
    },
  };
  return { provider, store };
}

/**
 * The person's side in Chromium: the authorization URL, sign-in (signed out), the consent page (checked),
 * Approve; the authorization response the browser was sent to.
 */
async function consentInChromium(
  authorizationUrl: URL,
  who: Person,
  expectations: { clientName: string; loopbackWarning: boolean },
): Promise<{ url: URL; page: Page; errors: string[] }> {
  const context = await chromium.context();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  let resolveCallback: (url: URL) => void = () => undefined;
  const landed = new Promise<URL>((resolve) => {
    resolveCallback = resolve;
  });
  await context.route(`${CALLBACK}**`, async (route) => {
    resolveCallback(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: "text/plain", body: "the agent has the code" });
  });
  await page.goto(authorizationUrl.toString());
  // Signed out: the page sends the person through sign-in and back.
  await page.waitForURL((url) => url.pathname === "/auth/sign-in");
  await page.getByLabel("E-mail", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  const second = page.locator("#sf-totp");
  await second.waitFor();
  await page.getByLabel("Code from your authenticator app").fill(totpAt(who.totpSecret, 1));
  await second.getByRole("button", { name: "Verify" }).click();
  await page.waitForURL((url) => url.pathname === "/auth/authorize");
  const consent = page.locator("main");
  await expect
    .poll(async () => (await consent.textContent()) ?? "", { timeout: 15_000 })
    .toContain(expectations.clientName);
  const text = (await consent.textContent()) ?? "";
  expect(text).toContain(CALLBACK);
  expect(text.toLowerCase()).toContain("unverified");
  if (expectations.loopbackWarning) expect(text.toLowerCase()).toMatch(/any program on your computer/);
  // leads:read is offered unchecked (never granted by default).
  const leads = page.locator('input[type="checkbox"][value="leads:read"]');
  if ((await leads.count()) > 0) expect(await leads.isChecked()).toBe(false);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  const url = await landed;
  return { url, page, errors };
}

/** The live grants of the person, as the account page lists them. */
async function grants(who: Person) {
  return gatewayCall<{ items: { id: string; client_id: string; scopes: string[] }[] }>(
    "GET",
    "/api/v1/auth/oauth/grants",
    { token: who.token },
  );
}

describe("an MCP agent connects with OAuth (issue 37)", () => {
  it("a 2026-07-28 client with a metadata document: discovery from the 401, consent, tools, a post as the person, revocation", async () => {
    const owner = await person("agent-modern");
    const name = `writer-${Date.now().toString(36)}.json`;
    const clientId = `https://mcp-clients.test/${name}`;
    const control = (path: string, body: unknown) =>
      fetch(`${platform().sso.issuer}/__test/${path}`, { method: "PUT", body: JSON.stringify(body) });
    expect((await control("dns/mcp-clients.test", { A: ["93.184.216.34"] })).status).toBe(204);
    const document = {
      client_id: clientId,
      client_name: "Modern Writer Agent",
      client_uri: "https://mcp-clients.test",
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
    expect((await control(`client-document/${name}`, document)).status).toBe(204);

    const { provider, store } = memoryProvider({ clientMetadataUrl: clientId, name: "Modern Writer Agent" });
    const endpoint = new URL(`${gateway()}/v1/mcp`);
    const first = new ModernClient({ name: "modern-writer", version: "1.0.0" });
    await expect(
      first.connect(new ModernTransport(endpoint, { authProvider: provider as never })),
    ).rejects.toBeInstanceOf(ModernUnauthorized);
    // Discovered from the 401: the authorization endpoint of the issuer, PKCE S256, the resource, our client id.
    const authorizationUrl = store.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${gateway()}/auth/authorize`);
    expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${gateway()}/v1/mcp`);

    const { url, errors } = await consentInChromium(authorizationUrl, owner, {
      clientName: "Modern Writer Agent",
      loopbackWarning: true,
    });
    expect(url.searchParams.get("iss")).toBe(gateway());
    expect(url.searchParams.get("code")).toBeTruthy();
    const transport = new ModernTransport(endpoint, { authProvider: provider as never });
    await transport.finishAuth(url.searchParams);
    expect(store.tokens?.access_token).toBeTruthy();

    const agent = new ModernClient({ name: "modern-writer", version: "1.0.0" });
    await agent.connect(new ModernTransport(endpoint, { authProvider: provider as never }));
    const tools = (await agent.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("create_post");
    const created = await agent.callTool({
      name: "create_post",
      arguments: { post: { title: "Written by a connected agent", status: "draft" } },
    });
    expect(created.isError, JSON.stringify(created.structuredContent ?? created.content)).toBeFalsy();
    const post = created.structuredContent as { id: string };
    // The post is the person's: it is on their site, made by them (the dashboard's view of it).
    const seen = await gatewayCall<Record<string, unknown>>(
      "GET",
      `/api/v1/sites/${owner.siteId}/posts/${post.id}`,
      { token: owner.token },
    );
    expect(seen.id).toBe(post.id);
    expect(seen.author_slug).toBe("agent-owner");
    expect(seen.created_by).toMatchObject({ kind: "person", name: "Agent Owner" });

    // The person sees the grant and revokes it; the agent's next write is refused.
    const listed = await grants(owner);
    const grant = listed.items.find((g) => g.client_id === clientId);
    expect(grant).toBeTruthy();
    await gatewayCall("DELETE", `/api/v1/auth/oauth/grants/${grant!.id}`, { token: owner.token });
    const refused = await agent
      .callTool({ name: "create_post", arguments: { post: { title: "After the revocation" } } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    // The write was refused (identity was asked afresh), the SDK tried its refresh token, and the token
    // endpoint said why: the grant is over.
    expect(refused).toBeInstanceOf(ModernOAuthError);
    expect(String(refused)).toMatch(/revoked/);
    expect(errors).toEqual([]);
    await agent.close().catch(() => undefined);
  }, 120_000);

  it("a 2025-11-25 client registers itself (RFC 7591), is consented, lists the tools, and loses access on revocation", async () => {
    const owner = await person("agent-legacy");
    const { provider, store } = memoryProvider({ name: "Legacy Registered Agent" });
    const endpoint = new URL(`${gateway()}/v1/mcp`);
    const first = new LegacyClient({ name: "legacy-agent", version: "1.0.0" });
    await expect(
      first.connect(new LegacyTransport(endpoint, { authProvider: provider as never })),
    ).rejects.toBeInstanceOf(LegacyUnauthorized);
    expect(store.client?.client_id).toMatch(/^mcp_/);
    const { url, errors } = await consentInChromium(store.authorizationUrl!, owner, {
      clientName: "Legacy Registered Agent",
      loopbackWarning: false,
    });
    const transport = new LegacyTransport(endpoint, { authProvider: provider as never });
    await transport.finishAuth(url.searchParams.get("code")!);
    const agent = new LegacyClient({ name: "legacy-agent", version: "1.0.0" });
    await agent.connect(new LegacyTransport(endpoint, { authProvider: provider as never }));
    expect((await agent.listTools()).tools.map((t) => t.name)).toContain("list_posts");
    const listed = await grants(owner);
    const grant = listed.items.find((g) => g.client_id === store.client?.client_id);
    await gatewayCall("DELETE", `/api/v1/auth/oauth/grants/${grant!.id}`, { token: owner.token });
    const refused = await agent
      .callTool({ name: "create_post", arguments: { post: { title: "After the revocation" } } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(String(refused)).toMatch(/revoked/);
    expect(errors).toEqual([]);
    await agent.close().catch(() => undefined);
  }, 120_000);
});
