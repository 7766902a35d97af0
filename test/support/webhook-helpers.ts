/**
 * Helpers of the webhook tests: webhooks made through the admin API, the fake receiver's inboxes
 * (test/support/fakes/webhook-receiver.ts) read over fetch, and polling for what the queue delivers.
 */
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "./content-groups";
import { call, ownerHeaders, testEnv } from "./content-helpers";
import type { ReceivedDelivery } from "./fakes/webhook-delivery";

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

/**
 * Tells the receiver which secrets its inbox `box` verifies signatures with; `next`: the secrets it
 * switches to once it has refused `afterRefusals` deliveries (an integrator installing a rotated secret).
 */
export async function trustSecrets(
  box: string,
  secrets: string[],
  next?: { afterRefusals: number; secrets: string[] },
): Promise<void> {
  const res = await fetch(`https://hooks.test/__box/${box}/secrets`, {
    method: "PUT",
    body: JSON.stringify({
      secrets,
      ...(next ? { next: { after_refusals: next.afterRefusals, secrets: next.secrets } } : {}),
    }),
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
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

/**
 * Whether the content-events consumer took in the marker event `id` of the site (its development record,
 * DEV_OUTBOX, in the site's group).
 */
async function consumed(siteId: string, id: string): Promise<boolean> {
  const db = await contentDbOf(siteId);
  const row = await db
    .prepare(
      "SELECT 1 AS found FROM outbound_effects WHERE site_id = ? AND kind = 'event:test.marker' AND json_extract(payload_json, '$.id') = ?",
    )
    .bind(siteId, id)
    .first<{ found: number }>();
  return row !== null;
}

async function unsettled(siteId: string): Promise<number> {
  const db = await contentDbOf(siteId);
  const outbox = await db
    .prepare("SELECT count(*) AS n FROM post_effects WHERE site_id = ? AND kind = 'event'")
    .bind(siteId)
    .first<{ n: number }>();
  const deliveries = await db
    .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE site_id = ? AND status = 'pending'")
    .bind(siteId)
    .first<{ n: number }>();
  return outbox!.n + deliveries!.n;
}

/**
 * Waits until nothing the test did is still on its way to `site`'s receivers, instead of sleeping "long
 * enough" before asserting an exact list: the site's outbox is empty (every event is on the queue); two
 * marker events sent after that came out of the content-events queue (the queue hands over one batch at
 * a time, in order, so every earlier event was taken in and its fan-out finished: its deliveries are
 * written); and none of the site's deliveries is pending (each was attempted and settled). What the
 * receivers have then is all they will get.
 */
export async function quiet(site: SiteProjection): Promise<void> {
  await eventually(
    () => unsettled(site.id),
    (n) => n === 0,
  );
  for (let i = 0; i < 2; i++) {
    const marker = `marker-${newId()}`;
    // The site's own id: the consumer routes every message by its site (docs/decisions/site-groups.md); no
    // webhook subscribes to this type, so it fans out to nothing.
    await testEnv.CONTENT_EVENTS.send({ id: marker, type: "test.marker", site_id: site.id });
    await eventually(
      () => consumed(site.id, marker),
      (found) => found,
    );
  }
  await eventually(
    () => unsettled(site.id),
    (n) => n === 0,
  );
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
