/**
 * `POST …/webhooks/{id}/test`: one signed `ping` to the webhook's URL, now, through the same sender (and
 * so the same URL checks: public addresses only, no redirects, one deadline) as a delivery; the answer is
 * the receiver's status and the latency, never its body. At most 5 pings per webhook per minute (its own
 * bucket in the ApiKeyGate, so a loop of tests cannot turn the platform into a request cannon).
 */
import { newId, parseUlid } from "../../lib/ids";
import type { Env } from "../core/bindings";
import { fail, problem } from "../errors";
import { webhookBody } from "./events";
import { openWebhookSecret } from "./secret-box";
import type { WebhookSender } from "./sender";
import { webhookHeaders } from "./signature";
import { liveWebhook } from "./store";

export const PING_BUCKET = { name: "ping", policy: "webhook-test", capacity: 5, windowSeconds: 60 };

export interface PingResult {
  event_id: string;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export async function pingWebhook(
  env: Env,
  sender: WebhookSender,
  siteId: string,
  rawId: string,
): Promise<PingResult> {
  const id = parseUlid(rawId);
  const webhook = id ? await liveWebhook(env.DB, siteId, id) : null;
  if (!id || !webhook) fail("NOT_FOUND", "No such webhook.");
  const gate = env.KEY_GATE.get(env.KEY_GATE.idFromName(`webhook-ping:${id}`));
  const taken = await gate.take([PING_BUCKET]);
  if (!taken.allowed) {
    throw problem("RATE_LIMITED", {
      detail: `At most ${PING_BUCKET.capacity} test pings per webhook per minute.`,
      headers: { "retry-after": String(taken.retryAfterSeconds) },
    });
  }
  const started = Date.now();
  const now = new Date(started).toISOString();
  const event = { id: newId(), type: "ping", site_id: siteId, webhook_id: id, occurred_at: now };
  const body = webhookBody(event, now);
  const secret = await openWebhookSecret(env.WEBHOOK_SECRET_KEY, id, webhook.secret_encrypted);
  const headers = await webhookHeaders(secret, event.id, Math.floor(started / 1000), body);
  const outcome = await sender.send(webhook.url, headers, body);
  return {
    event_id: event.id,
    delivered: outcome.kind === "delivered",
    status_code: outcome.status,
    error: outcome.kind === "failed" ? outcome.error : null,
    latency_ms: Date.now() - started,
  };
}
