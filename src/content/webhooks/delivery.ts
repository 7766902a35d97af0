/**
 * The `content-events` queue consumer: events fan out into one queue message per (event, webhook), and
 * each such message is one signed attempt. A message is acked or retried on its own, and the messages of
 * a batch run concurrently, so a slow or failing receiver never holds back another.
 *
 * Retries: a failed attempt is retried with `message.retry({ delaySeconds })` on an exponential schedule
 * (`retryDelaySeconds`); when the queue's `max_retries` (workers/content/wrangler.toml) is exhausted the
 * platform moves the message to `content-events-dlq`, whose consumer (`settleDeadLetters`) marks the
 * delivery failed. 410 Gone and a destination that is not public fail at once (retrying cannot help).
 */
import { newId } from "../../lib/ids";
import { errorFields, type Logger } from "../../lib/log";
import { count } from "../../lib/metrics";
import { tracedMessage } from "../../lib/trace";
import type { Env, Services } from "../core/bindings";
import { auditLeadDelivery } from "../leads/audit";
import { getSite, INACTIVE_SITE_STATUSES } from "../site/store";
import { type ContentEvent, isContentEvent, webhookBody } from "./events";
import { openWebhookSecret } from "./secret-box";
import type { AttemptOutcome } from "./sender";
import { webhookHeaders } from "./signature";
import {
  type AttemptRecord,
  claimDelivery,
  insertDeliveries,
  markDeadLettered,
  recordAttempt,
  releaseDelivery,
  subscribedWebhookIds,
} from "./store";

/** The longest delay a queue message can be retried with (Cloudflare Queues: 12 hours). */
export const MAX_RETRY_DELAY_SECONDS = 43_200;
const DEFAULT_RETRY_BASE_SECONDS = 5;
const BACKOFF_FACTOR = 6;

export interface DeliveryMessage {
  kind: "webhook_delivery";
  delivery_id: string;
  webhook_id: string;
  site_id: string;
}

function isDeliveryMessage(body: unknown): body is DeliveryMessage {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as { kind?: unknown }).kind === "webhook_delivery" &&
    typeof (body as { delivery_id?: unknown }).delivery_id === "string"
  );
}

/**
 * Seconds before the attempt after failed attempt `attempt` (1-based): base × 6^(attempt−1) with ±10%
 * jitter (so receivers that failed together are not retried together), at least a receiver's
 * `Retry-After`, at most 12 hours. With the default base of 5 s: 5 s, 30 s, 3 min, 18 min, 1.8 h, 10.8 h, 12 h.
 */
export function retryDelaySeconds(
  attempt: number,
  baseSeconds: number,
  retryAfter?: number,
  random: () => number = Math.random,
): number {
  const exponential = baseSeconds * BACKOFF_FACTOR ** Math.max(0, attempt - 1);
  const jittered = exponential * (0.9 + 0.2 * random());
  const delay = Math.max(jittered, retryAfter ?? 0);
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.round(delay));
}

function retryBase(env: Env): number {
  const base = Number(env.WEBHOOK_RETRY_BASE_SECONDS);
  return Number.isFinite(base) && base >= 0 ? base : DEFAULT_RETRY_BASE_SECONDS;
}

function lockMilliseconds(env: Env): number {
  const timeout = Number(env.WEBHOOK_TIMEOUT_MS);
  return (Number.isFinite(timeout) && timeout > 0 ? timeout : 15_000) + 60_000;
}

/** Writes the event's deliveries and queues one message per delivery not yet attempted. */
async function fanOut(env: Env, event: ContentEvent): Promise<number> {
  const site = await getSite(env.DB, event.site_id);
  if (!site || INACTIVE_SITE_STATUSES.has(site.status)) return 0;
  const webhookIds = await subscribedWebhookIds(env.DB, site.id, event.type);
  if (webhookIds.length === 0) return 0;
  const now = new Date().toISOString();
  const body = webhookBody(event, now);
  const fresh = await insertDeliveries(
    env.DB,
    site.id,
    event.id,
    webhookIds.map((webhookId) => ({
      id: newId(),
      webhook_id: webhookId,
      site_id: site.id,
      event_id: event.id,
      event_type: event.type,
      body,
      created_at: now,
    })),
  );
  for (let i = 0; i < fresh.length; i += 100) {
    await env.CONTENT_EVENTS.sendBatch(
      fresh.slice(i, i + 100).map((d) => ({
        body: tracedMessage({
          kind: "webhook_delivery",
          delivery_id: d.id,
          webhook_id: d.webhook_id,
          site_id: site.id,
        } satisfies DeliveryMessage),
      })),
    );
  }
  return fresh.length;
}

/** One signed attempt of a delivery; answers the delay of the next attempt, or null when settled. */
export async function attemptDelivery(
  env: Env,
  services: Services,
  message: DeliveryMessage,
): Promise<number | null> {
  const started = Date.now();
  const now = new Date(started).toISOString();
  const claim = await claimDelivery(
    env.DB,
    message.delivery_id,
    now,
    new Date(started + lockMilliseconds(env)).toISOString(),
  );
  if (claim.kind === "settled") return null;
  // A duplicate message while another attempt runs: look again once that attempt's lock is over.
  if (claim.kind === "busy") return Math.max(1, Math.ceil((Date.parse(claim.until) - started) / 1000));
  const delivery = claim.delivery;
  let outcome: AttemptOutcome;
  try {
    // Personal data: the attempt is audited like a lead read before anything is sent (fail closed).
    if (delivery.event_type === "lead.created")
      await auditLeadDelivery(env.DB, delivery, delivery.attempts + 1, now);
    const secret = await openWebhookSecret(
      env.WEBHOOK_SECRET_KEY,
      delivery.webhook_id,
      delivery.secret_encrypted,
    );
    const headers = await webhookHeaders(
      secret,
      delivery.event_id,
      Math.floor(started / 1000),
      delivery.body,
    );
    outcome = await services.webhooks.send(delivery.url, headers, delivery.body);
  } catch (err) {
    // Not an attempt (nothing was sent): free the delivery for the queue's own retry.
    await releaseDelivery(env.DB, delivery.id);
    throw err;
  }
  const attempt: AttemptRecord = {
    attempt: delivery.attempts + 1,
    at: now,
    status_code: outcome.status,
    error: outcome.kind === "failed" ? outcome.error : null,
    duration_ms: Date.now() - started,
  };
  const finished = new Date().toISOString();
  // Webhook deliveries by outcome (docs/operations.md, "Metrics"): delivered, failed (given up), retry.
  count("webhook_delivery", {
    outcome: outcome.kind === "delivered" ? "delivered" : outcome.retryable ? "retry" : "failed",
  });
  if (outcome.kind === "delivered" || !outcome.retryable) {
    const status = outcome.kind === "delivered" ? "delivered" : "failed";
    await recordAttempt(env.DB, delivery.id, attempt, {
      status,
      next_attempt_at: null,
      settled_at: finished,
    });
    return null;
  }
  const delay = retryDelaySeconds(attempt.attempt, retryBase(env), outcome.retryAfterSeconds);
  await recordAttempt(env.DB, delivery.id, attempt, {
    status: "pending",
    next_attempt_at: new Date(Date.now() + delay * 1000).toISOString(),
    settled_at: null,
  });
  return delay;
}

async function handleMessage(env: Env, services: Services, message: Message<unknown>, log: Logger) {
  try {
    if (isDeliveryMessage(message.body)) {
      const delay = await attemptDelivery(env, services, message.body);
      if (delay === null) message.ack();
      else message.retry({ delaySeconds: delay });
      return;
    }
    if (isContentEvent(message.body)) await fanOut(env, message.body);
    message.ack();
  } catch (err) {
    log.warn("content_event_failed", {
      message_id: message.id,
      attempts: message.attempts,
      ...errorFields(err),
    });
    message.retry();
  }
}

/** The `content-events` consumer of one group's messages (index.ts splits a batch by site): fan-out of events, and webhook attempts. */
export async function deliverContentEvents(
  env: Env,
  services: Services,
  batch: Pick<MessageBatch<unknown>, "messages">,
): Promise<void> {
  await Promise.all(batch.messages.map((m) => handleMessage(env, services, m, services.log)));
}

/** The `content-events-dlq` consumer: deliveries whose retries ran out are failed; lost events are logged. */
export async function settleDeadLetters(
  env: Env,
  log: Logger,
  batch: Pick<MessageBatch<unknown>, "messages">,
): Promise<void> {
  const now = new Date().toISOString();
  for (const message of batch.messages) {
    if (isDeliveryMessage(message.body)) {
      await markDeadLettered(env.DB, message.body.delivery_id, now);
      log.warn("webhook_delivery_dead_lettered", {
        delivery_id: message.body.delivery_id,
        webhook_id: message.body.webhook_id,
        site_id: message.body.site_id,
      });
    } else if (isContentEvent(message.body)) {
      log.error("content_event_dead_lettered", {
        event_id: message.body.id,
        type: message.body.type,
        site_id: message.body.site_id,
      });
    }
    message.ack();
  }
}
