/**
 * A webhook receiver on the fake internet, as an integrator writes one: it verifies every delivery's
 * Standard Webhooks signature with the secrets it was told (node:crypto, independently of the service's
 * own signer), refuses a bad one with 401, and records every request. Tests reach it over fetch (their
 * outbound requests land on the fake internet too). Each test uses its own inbox `<box>`.
 *
 * Receiver paths (any receiver host: hooks.test, and hosts made with PUT /__zone):
 *   POST /inbox/<box>               verify; 204 when a signature matches a secret of the box, else 401
 *   POST /status/<code>/<box>       record, answer <code> (`?retry_after=N` adds Retry-After: N)
 *   POST /flaky/<n>/<box>           the first n requests answer 503, then as /inbox
 *   POST /slow/<box>                record, answer 204 after 3 s (longer than the tests' 1 s timeout)
 *   POST /redirect/<box>            record, 302 to https://hooks.test/inbox/<box> (must not be followed)
 * Control paths (hooks.test):
 *   PUT /__box/<box>/secrets        body {"secrets": ["whsec_…", …]}: the secrets the box verifies with;
 *                                   with "next": {"after_refusals": n, "secrets": […]} the box switches to
 *                                   those once it has refused n deliveries (an integrator who installs a
 *                                   rotated secret after seeing its checks fail), however fast retries come
 *   GET /__box/<box>                {"deliveries": [{path, id, timestamp, signature, body, verified, …}]}
 *   PUT /__zone/<name>              body {"A": ["…"]}: (re)defines the fake DNS of <name> and serves
 *                                   these receiver paths on it (a name that turns private after registration)
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { fakeHost } from "../fake-internet.ts";
import type { ReceivedDelivery } from "./webhook-delivery.ts";

interface Box {
  secrets: string[];
  deliveries: ReceivedDelivery[];
  hits: number;
  /** Secrets the box verifies with once it has refused `afterRefusals` deliveries. */
  next?: { afterRefusals: number; secrets: string[] };
  refusals: number;
}

const boxes = new Map<string, Box>();

function box(name: string): Box {
  let found = boxes.get(name);
  if (!found) {
    found = { secrets: [], deliveries: [], hits: 0, refusals: 0 };
    boxes.set(name, found);
  }
  return found;
}

const TOLERANCE_SECONDS = 5 * 60;

/** The Standard Webhooks check a receiver library makes. */
export function verifyStandardWebhook(
  secrets: string[],
  id: string | null,
  timestamp: string | null,
  signatureHeader: string | null,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!id || !timestamp || !signatureHeader || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const sent = signatureHeader
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => Buffer.from(entry.slice(3), "base64"));
  return secrets.some((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
    return sent.some(
      (signature) => signature.length === expected.length && timingSafeEqual(signature, expected),
    );
  });
}

/** A delivery refused (401): the box moves to its next secrets once it has refused enough. */
function refused(inbox: Box): void {
  inbox.refusals++;
  if (inbox.next && inbox.refusals >= inbox.next.afterRefusals) {
    inbox.secrets = inbox.next.secrets;
    inbox.next = undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function receive(request: Request, url: URL): Promise<Response> {
  const parts = url.pathname.split("/").filter((p) => p !== "");
  const name = parts[parts.length - 1] ?? "";
  const inbox = box(name);
  const body = await request.text();
  const id = request.headers.get("webhook-id");
  const timestamp = request.headers.get("webhook-timestamp");
  const signature = request.headers.get("webhook-signature");
  const verified = verifyStandardWebhook(inbox.secrets, id, timestamp, signature, body);
  inbox.hits++;
  inbox.deliveries.push({
    path: url.pathname,
    id,
    timestamp,
    signature,
    content_type: request.headers.get("content-type"),
    user_agent: request.headers.get("user-agent"),
    body,
    verified,
    received_at: Date.now(),
  });
  const answer = () => {
    if (!verified) refused(inbox);
    return new Response(null, { status: verified ? 204 : 401 });
  };
  switch (parts[0]) {
    case "inbox":
      return answer();
    case "status": {
      const retryAfter = url.searchParams.get("retry_after");
      return new Response(`status ${parts[1]}`, {
        status: Number(parts[1]),
        headers: retryAfter ? { "retry-after": retryAfter } : {},
      });
    }
    case "flaky":
      return inbox.hits <= Number(parts[1]) ? new Response("try later", { status: 503 }) : answer();
    case "slow":
      await sleep(3000);
      return new Response(null, { status: 204 });
    case "redirect":
      return new Response(null, { status: 302, headers: { location: `https://hooks.test/inbox/${name}` } });
  }
  return new Response("no such receiver path", { status: 404 });
}

async function control(request: Request, url: URL): Promise<Response | null> {
  const secrets = /^\/__box\/([^/]+)\/secrets$/.exec(url.pathname);
  if (secrets && request.method === "PUT") {
    const body = (await request.json()) as {
      secrets: string[];
      next?: { after_refusals: number; secrets: string[] };
    };
    const target = box(secrets[1]!);
    target.secrets = body.secrets;
    target.next = body.next && { afterRefusals: body.next.after_refusals, secrets: body.next.secrets };
    return new Response(null, { status: 204 });
  }
  const read = /^\/__box\/([^/]+)$/.exec(url.pathname);
  if (read && request.method === "GET") return Response.json({ deliveries: box(read[1]!).deliveries });
  return null;
}

export function registerWebhookReceiver(setZone: (name: string, zone: { A: string[] }) => void) {
  fakeHost("hooks.test", async (request, url) => {
    const zone = /^\/__zone\/([a-z0-9.-]+\.test)$/.exec(url.pathname);
    if (zone && request.method === "PUT") {
      setZone(zone[1]!, (await request.json()) as { A: string[] });
      fakeHost(zone[1]!, receive);
      return new Response(null, { status: 204 });
    }
    return (await control(request, url)) ?? receive(request, url);
  });
}
