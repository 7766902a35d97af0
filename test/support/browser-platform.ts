/**
 * Global setup of the `browser` project: the whole platform as `npm start` runs it (one Miniflare, the
 * four Workers built from their wrangler configs, local D1/KV/DO/Queues/R2), on its own ports (gateway
 * 10787, identity 10788, content 10789, sites 10790) and a throwaway store, so a running `npm start` is left
 * alone. Pages are opened at `http://localhost:…`: browsers refuse an IP address as a WebAuthn RP ID.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startOidcProvider } from "../../scripts/oidc-provider.mjs";
import { startPlatform } from "../../scripts/platform.mjs";
import { root } from "../../scripts/workers.mjs";
import { fakeHost, fakeInternet } from "./fake-internet.ts";
import { testOnlySettings } from "./test-only-settings.ts";

/** The test-only hosts of the fake internet (breach range API, DNS-over-HTTPS), as the workerd projects use. */
const FAKE_HOSTS = {
  BREACH_CHECK_URL: "https://breach.test/range/",
  DOH_URL: "https://dns.test/dns-query",
};

/** Ports of the browser platform: 8787+offset…; `BROWSER_PORT_OFFSET` moves them (parallel worktrees). */
export const PORT_OFFSET = Number(process.env.BROWSER_PORT_OFFSET ?? 2000);

export interface BrowserPlatform {
  /** What a browser opens: `http://localhost:<port>` of each worker. */
  urls: { gateway: string; identity: string; content: string; sites: string };
  /**
   * A local OpenID provider (as `npm start` runs one) for the SSO test: Chromium opens it directly, the
   * identity worker reaches it through the fake internet. `control`: POST `/__test/account` (JSON
   * account), PUT `/__test/dns/<name>` (a fake DNS zone) and PUT `/__test/client-document/<name>` (an MCP
   * client's Client ID Metadata Document, then served at `https://mcp-clients.test/<name>`) on it.
   */
  sso: { issuer: string; client_id: string; client_secret: string };
}

declare module "vitest" {
  export interface ProvidedContext {
    platform: BrowserPlatform;
  }
}

export default async function setup(project: TestProject) {
  const persist = mkdtempSync(path.join(tmpdir(), "platform-browser-"));
  mkdirSync(path.join(root, "test-artifacts"), { recursive: true });
  const logFile = path.join(root, "test-artifacts", "platform.log");
  const local = (port: number) => `http://localhost:${port + PORT_OFFSET}`;
  const urls = {
    gateway: local(8787),
    identity: local(8788),
    content: local(8789),
    sites: local(8790),
  };
  const { mf } = await startPlatform({
    persist,
    portOffset: PORT_OFFSET,
    distDir: path.join(root, ".browser-build"),
    // No test touches the network: every outbound fetch lands in the same fake internet as the workerd
    // projects' (anything unknown answers 599).
    outboundService: fakeInternet,
    // The Workers' log lines go to test-artifacts/platform.log, not between the test results.
    handleStructuredLogs: (log) => appendFileSync(logFile, `${log.message}\n`),
    extraBindings: {
      // The tests' lower password cost, as in the workerd projects (the journeys are about pages, not the
      // hash; the timing project and the bench keep the production cost).
      identity: {
        ...FAKE_HOSTS,
        ...testOnlySettings,
        ISSUER: urls.gateway,
        WEBAUTHN_ORIGIN: `${urls.gateway},${urls.identity}`,
      },
      // Media URLs on the public origin (the gateway), as the committed config has them at offset 0.
      content: { ...FAKE_HOSTS, MEDIA_PUBLIC_BASE: `${urls.gateway}/media`, TOKEN_ISSUER: urls.gateway },
      sites: { ...FAKE_HOSTS, MEDIA_PUBLIC_BASE: `${urls.gateway}/media` },
      gateway: { TOKEN_ISSUER: urls.gateway },
    },
  });
  const sso = await startBrowserIdp(urls.gateway);
  project.provide("platform", { urls, sso: sso.info });
  return async () => {
    await sso.close();
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  };
}

/**
 * MCP clients' Client ID Metadata Documents (issue 37): the test puts one through the provider's control
 * route; the identity worker fetches it from `https://mcp-clients.test/<name>` through the fake internet
 * (its DNS answer is the test's zone, like any host identity fetches).
 */
const clientDocuments = new Map<string, string>();
fakeHost("mcp-clients.test", (_request, url) => {
  const document = clientDocuments.get(url.pathname.slice(1));
  return document === undefined
    ? new Response("no such document", { status: 404 })
    : new Response(document, { headers: { "content-type": "application/json" } });
});

/** The SSO test's provider: `oidc-provider` on localhost, its test-only control routes, its fake host. */
async function startBrowserIdp(gateway: string) {
  const port = 8791 + PORT_OFFSET;
  const info = {
    issuer: `http://localhost:${port}`,
    client_id: "platform-browser",
    client_secret: "platform-browser-secret-0123456789",
  };
  const provider = await startOidcProvider({
    issuer: info.issuer,
    port,
    host: "127.0.0.1",
    clients: [{ ...info, redirect_uris: [`${gateway}/api/v1/auth/sso/callback`] }],
    control: async (req, res, url, tools) => {
      if (!url.pathname.startsWith("/__test/")) return false;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const zone = /^\/__test\/dns\/([a-z0-9_.-]+\.test)$/.exec(url.pathname);
      const clientDocument = /^\/__test\/client-document\/([a-z0-9_.-]+)$/.exec(url.pathname);
      if (url.pathname === "/__test/account") tools.addAccount(JSON.parse(body));
      else if (clientDocument) clientDocuments.set(clientDocument[1]!, body);
      else if (zone)
        await fakeInternet(new Request(`https://dns.test/__zone/${zone[1]}`, { method: "PUT", body }));
      else return false;
      res.writeHead(204);
      res.end();
      return true;
    },
  });
  // The identity worker's requests to http://localhost:<port> (its outbound fetches all land in the fake
  // internet) reach the provider; any other localhost port stays unknown.
  fakeHost("localhost", async (request, url) => {
    if (url.port !== String(port)) return new Response("fake internet: no such port", { status: 599 });
    const headers = new Headers(request.headers);
    for (const hop of ["host", "content-length", "connection", "transfer-encoding"]) headers.delete(hop);
    // The provider names its endpoints after the host it was asked for, as Chromium asks it.
    headers.set("x-forwarded-host", url.host);
    headers.set("x-forwarded-proto", "http");
    const body = request.method === "GET" ? undefined : await request.arrayBuffer();
    const res = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
    });
    return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
  });
  return { info, close: () => provider.close() };
}
