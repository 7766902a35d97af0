/**
 * Helpers of the OAuth client tests (issue 37): identity's services for calling `resolveClient` directly
 * with the real bindings, publishing a Client ID Metadata Document on the fake internet
 * (test/support/fakes/oauth-clients.ts), and registering a client through the Worker.
 */
import { env } from "cloudflare:workers";
import type { Services } from "../../src/identity/core/context";
import { outboundDeadline } from "../../src/identity/core/deadlines";
import type { Env } from "../../src/identity/core/worker-env";
import { createMailer, createSmsSender } from "../../src/identity/messaging/messaging";
import { BREACH_CHECK_TIMEOUT_MS, RangeApiBreachChecker } from "../../src/identity/signup/breach";
import { callLogger } from "../../src/lib/log";
import { call, json } from "./identity-helpers";
import { CIMD_ZONES } from "./oauth-client-hosts";

export const identityEnv = env as unknown as Env;

/** The services a request would get (the client IP given), for calling business functions directly. */
export function identityServices(ip = "203.0.113.10", withEnv: Env = identityEnv): Services {
  return {
    mailer: createMailer(withEnv),
    sms: createSmsSender(withEnv),
    breach: new RangeApiBreachChecker(
      withEnv.BREACH_CHECK_URL,
      outboundDeadline(withEnv, BREACH_CHECK_TIMEOUT_MS),
    ),
    log: callLogger("identity"),
    waitUntil: () => {},
    request: { ip, userAgent: null, deviceCookie: undefined, https: true },
  };
}

let zonesDefined: Promise<void> | null = null;

/** Defines the fake DNS of the document hosts (once per runtime). */
export function defineDocumentHosts(): Promise<void> {
  zonesDefined ??= (async () => {
    for (const [name, zone] of Object.entries(CIMD_ZONES)) {
      const res = await fetch(`https://dns.test/__zone/${name}`, {
        method: "PUT",
        body: JSON.stringify(zone),
      });
      if (res.status !== 204) throw new Error(`zone ${name}: ${res.status}`);
    }
  })();
  return zonesDefined;
}

export interface Publication {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  delayMs?: number;
  chunked?: boolean;
}

/** A fresh document URL on `host` (a path no other test uses). */
export function documentUrl(host = "cimd.test", name = "client.json"): string {
  return `https://${host}/agents/${crypto.randomUUID()}/${name}`;
}

/** Publishes the answer of `url` on its fake host. */
export async function publish(url: string, answer: Publication): Promise<void> {
  const u = new URL(url);
  const res = await fetch(`${u.origin}/__doc${u.pathname}`, { method: "PUT", body: JSON.stringify(answer) });
  if (res.status !== 204) throw new Error(`publish ${url}: ${res.status}`);
}

/** Publishes `document` as JSON at `url` (extra headers: Cache-Control …). */
export function publishDocument(url: string, document: unknown, headers: Record<string, string> = {}) {
  return publish(url, { body: JSON.stringify(document), headers });
}

/** The Accept header of the last request `url` got. */
export async function lastAcceptOf(url: string): Promise<string | null> {
  const u = new URL(url);
  const res = await fetch(`${u.origin}/__hits${u.pathname}`);
  return ((await res.json()) as { accept: string | null }).accept;
}

/** How many requests `url` got. */
export async function hitsOf(url: string): Promise<number> {
  const u = new URL(url);
  const res = await fetch(`${u.origin}/__hits${u.pathname}`);
  return ((await res.json()) as { hits: number }).hits;
}

/** A valid metadata document of `url`, with `extra` members merged over it. */
export function clientDocument(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: url,
    client_name: "Example Agent",
    client_uri: "https://agent.example",
    redirect_uris: ["https://agent.example/callback", "http://127.0.0.1:33418/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}

/** Registers a client through the Worker (RFC 7591); the answer's status and body. */
export async function register(
  body: unknown,
  ip?: string,
): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const res = await call("POST", "/api/v1/auth/oauth/register", { body, ...(ip ? { ip } : {}) });
  return { status: res.status, body: await json<Record<string, unknown>>(res.clone()), res };
}
