/**
 * Helpers of the webhook tests: webhooks made through the admin API, the fake receiver's inboxes
 * (test/support/fakes/webhook-receiver.ts) read over fetch, and polling for what the queue delivers.
 */
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { call, ownerHeaders } from "./content-helpers";

/** What the fake receiver recorded of one request (its `ReceivedDelivery`, test/support/fakes/webhook-receiver.ts). */
export interface ReceivedDelivery {
  path: string;
  id: string | null;
  timestamp: string | null;
  signature: string | null;
  content_type: string | null;
  user_agent: string | null;
  body: string;
  verified: boolean;
  received_at: number;
}

export const webhooksPath = (siteId: string) => `/api/v1/sites/${siteId}/webhooks`;

export interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: string;
}

export interface DeliveryOut {
  id: string;
  event_id: string;
  event_type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  attempt_log: { attempt: number; at: string; status_code: number | null; error: string | null }[];
}

/** A fresh inbox of the fake receiver and its URL (`kind` picks the receiver's behaviour). */
export function inbox(kind = "inbox"): { box: string; url: string } {
  const box = newId().toLowerCase();
  return { box, url: `https://hooks.test/${kind}/${box}` };
}

export async function createWebhook(
  site: SiteProjection,
  body: { url: string; events?: string[]; description?: string },
): Promise<CreatedWebhook> {
  const res = await call("POST", webhooksPath(site.id), {
    headers: ownerHeaders(site),
    body: { events: ["post.published", "post.updated", "post.unpublished", "media.ready"], ...body },
  });
  if (res.status !== 201) throw new Error(`createWebhook: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedWebhook;
}

/** Tells the receiver which secrets its inbox `box` verifies signatures with. */
export async function trustSecrets(box: string, secrets: string[]): Promise<void> {
  const res = await fetch(`https://hooks.test/__box/${box}/secrets`, {
    method: "PUT",
    body: JSON.stringify({ secrets }),
  });
  if (res.status !== 204) throw new Error(`trustSecrets: ${res.status}`);
}

export async function received(box: string): Promise<ReceivedDelivery[]> {
  const res = await fetch(`https://hooks.test/__box/${box}`);
  return ((await res.json()) as { deliveries: ReceivedDelivery[] }).deliveries;
}

/** Defines (or changes) the fake DNS of a receiver name `<name>.test`. */
export async function defineReceiverHost(name: string, addresses: string[]): Promise<void> {
  const res = await fetch(`https://hooks.test/__zone/${name}`, {
    method: "PUT",
    body: JSON.stringify({ A: addresses }),
  });
  if (res.status !== 204) throw new Error(`defineReceiverHost: ${res.status}`);
}

/** Polls `read` until `done` holds (the queue consumer runs on its own), or fails after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > until) throw new Error(`eventually: gave up, last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

export async function deliveriesOf(site: SiteProjection, webhookId: string): Promise<DeliveryOut[]> {
  const res = await call("GET", `${webhooksPath(site.id)}/${webhookId}/deliveries?limit=100`, {
    headers: ownerHeaders(site),
  });
  if (res.status !== 200) throw new Error(`deliveriesOf: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { items: DeliveryOut[] }).items;
}

/** The receiver's deliveries parsed: Standard Webhooks body `{type, timestamp, data}`. */
export function payloads(deliveries: ReceivedDelivery[]) {
  return deliveries.map(
    (d) => JSON.parse(d.body) as { type: string; timestamp: string; data: Record<string, unknown> },
  );
}
