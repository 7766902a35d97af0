/**
 * Webhook administration by site staff (`/api/v1/sites/{site_id}/webhooks`): create (the signing secret
 * is shown once), list, delete, rotate the secret, read the delivery log. The caller is authorized (as
 * for API keys) before any of these runs; ids of another site's webhooks match nothing (404).
 */
import { newId, parseUlid } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import type { Env } from "../core/bindings";
import { fail } from "../errors";
import { carriedOver } from "../transfers/store";
import type { WebhookEventType } from "./events";
import { sealWebhookSecret } from "./secret-box";
import { isLocalReceiver, type WebhookSender } from "./sender";
import { generateWebhookSecret } from "./signature";
import {
  type DeliveryRow,
  deleteWebhook,
  insertWebhook,
  listDeliveries,
  listSiteWebhooks,
  replaceWebhookSecret,
  type WebhookView,
  webhookExists,
} from "./store";

/** Webhooks a site may have. */
export const MAX_WEBHOOKS_PER_SITE = 20;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const DELIVERIES_DEFAULT = 20;
export const DELIVERIES_MAX = 100;

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
}

/**
 * The URL a webhook may be registered with: https, no credentials or fragment, and a name whose every
 * address is public (a private literal, a private name, or a name resolving to any private address is
 * 422). A name that does not resolve yet is accepted: every delivery checks the address again.
 */
export async function checkWebhookUrl(raw: string, sender: WebhookSender): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail("INVALID_WEBHOOK_URL", "url must be an absolute https URL.");
  }
  const local = sender.localReceivers === true && isLocalReceiver(url);
  if (url.protocol !== "https:" && !local) fail("INVALID_WEBHOOK_URL", "url must use https.");
  if (url.username !== "" || url.password !== "") {
    fail(
      "INVALID_WEBHOOK_URL",
      "url must not carry credentials; authenticate deliveries by their signature.",
    );
  }
  if (url.hash !== "" || raw.includes("#")) fail("INVALID_WEBHOOK_URL", "url must not have a fragment.");
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    fail("INVALID_WEBHOOK_URL", `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  const checked = await sender.checkDestination(url.href);
  if (checked.ok) return checked.url;
  if (checked.reason === "non_public_host") {
    fail(
      "WEBHOOK_URL_NOT_PUBLIC",
      "url must point at a public address (not private, loopback or link-local).",
    );
  }
  if (checked.definitive) fail("INVALID_WEBHOOK_URL", `url is not usable (${checked.reason}).`);
  return url.href;
}

function view(row: WebhookView) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events_json) as WebhookEventType[],
    description: row.description,
    created_by: row.created_by,
    created_at: row.created_at,
    secret_rotated_at: row.secret_rotated_at,
    carried_over: carriedOver(row),
  };
}

function webhookNotFound(): never {
  fail("NOT_FOUND", "No such webhook.");
}

/** An id that is no ULID is a webhook that does not exist. */
function webhookId(raw: string): string {
  return parseUlid(raw) ?? webhookNotFound();
}

export async function createWebhook(
  env: Env,
  sender: WebhookSender,
  site: SiteProjection,
  userId: string,
  input: NewWebhook,
) {
  const url = await checkWebhookUrl(input.url, sender);
  const secret = generateWebhookSecret();
  const id = newId();
  const row = {
    id,
    site_id: site.id,
    url,
    events_json: JSON.stringify([...new Set(input.events)]),
    description: input.description ?? null,
    secret_encrypted: await sealWebhookSecret(env.WEBHOOK_SECRET_KEY, id, secret),
    created_by: userId,
    created_at: new Date().toISOString(),
    secret_rotated_at: null,
  };
  if (!(await insertWebhook(env.DB, row, MAX_WEBHOOKS_PER_SITE))) {
    fail("WEBHOOK_LIMIT_REACHED", `A site has at most ${MAX_WEBHOOKS_PER_SITE} webhooks; delete one first.`);
  }
  return { ...view({ ...row, carried_over_at: null, carried_over_from: null }), secret };
}

export async function listWebhooks(db: D1Database, siteId: string, id?: string) {
  return (await listSiteWebhooks(db, siteId, id)).map(view);
}

export async function deleteSiteWebhook(db: D1Database, siteId: string, rawId: string): Promise<void> {
  if (!(await deleteWebhook(db, siteId, webhookId(rawId)))) webhookNotFound();
}

/** A new secret at once: the old one stops signing with the very next attempt (retries included). */
export async function rotateWebhookSecret(env: Env, siteId: string, rawId: string) {
  const id = webhookId(rawId);
  const secret = generateWebhookSecret();
  const now = new Date().toISOString();
  const sealed = await sealWebhookSecret(env.WEBHOOK_SECRET_KEY, id, secret);
  if (!(await replaceWebhookSecret(env.DB, siteId, id, sealed, now))) webhookNotFound();
  return { id, secret, secret_rotated_at: now };
}

function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type as WebhookEventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.next_attempt_at,
    delivered_at: row.delivered_at,
    failed_at: row.failed_at,
    attempt_log: JSON.parse(row.attempts_json) as {
      attempt: number;
      at: string;
      status_code: number | null;
      error: string | null;
      duration_ms: number;
    }[],
  };
}

export function parseDeliveriesLimit(value: string | undefined): number {
  if (value === undefined) return DELIVERIES_DEFAULT;
  const limit = /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (limit < 1 || limit > DELIVERIES_MAX) {
    fail("INVALID_LIMIT", `limit must be an integer from 1 to ${DELIVERIES_MAX}.`);
  }
  return limit;
}

/** The webhook's deliveries, newest first; `cursor` is the `next_cursor` of the previous page. */
export async function listWebhookDeliveries(
  db: D1Database,
  siteId: string,
  rawId: string,
  query: { limit?: string | undefined; cursor?: string | undefined },
) {
  const id = webhookId(rawId);
  const limit = parseDeliveriesLimit(query.limit);
  const cursor = query.cursor === undefined ? null : parseUlid(query.cursor);
  if (query.cursor !== undefined && cursor === null) fail("INVALID_CURSOR", "cursor is not a next_cursor.");
  if (!(await webhookExists(db, siteId, id))) webhookNotFound();
  const rows = await listDeliveries(db, siteId, id, limit + 1, cursor);
  const page = rows.slice(0, limit);
  return {
    items: page.map(deliveryView),
    next_cursor: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}
