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
import { startPlatform } from "../../scripts/platform.mjs";
import { root } from "../../scripts/workers.mjs";
import { fakeInternet } from "./fake-internet.ts";

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
      identity: { ...FAKE_HOSTS, ISSUER: urls.gateway, WEBAUTHN_ORIGIN: `${urls.gateway},${urls.identity}` },
      // Media URLs on the public origin (the gateway), as the committed config has them at offset 0.
      content: { ...FAKE_HOSTS, MEDIA_PUBLIC_BASE: `${urls.gateway}/media` },
      sites: { ...FAKE_HOSTS, MEDIA_PUBLIC_BASE: `${urls.gateway}/media` },
      gateway: { TOKEN_ISSUER: urls.gateway },
    },
  });
  project.provide("platform", { urls });
  return async () => {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  };
}
