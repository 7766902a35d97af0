/**
 * Signed webhooks of a site, administered by its staff through the edge at
 * `/api/v1/sites/{site_id}/webhooks` (who may: as for API keys). The signing secret is shown once, at
 * creation and at each rotation. Deliveries follow the Standard Webhooks spec (docs/decisions/content.md).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { fail } from "../errors";
import { authorizeSiteAdmin } from "../keys/middleware";
import { CarriedOverSchema, keepWebhook } from "../transfers/carried-over";
import {
  createWebhook,
  DELIVERIES_DEFAULT,
  DELIVERIES_MAX,
  deleteSiteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WEBHOOKS_PER_SITE,
  rotateWebhookSecret,
} from "./admin";
import { WEBHOOK_EVENTS } from "./events";
import { registerWebhookEventDocs } from "./openapi-events";
import { PING_BUCKET, pingWebhook } from "./ping";

const SiteParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });
const WebhookParam = SiteParam.extend({ id: z.string().openapi({ description: "Webhook id (ULID)" }) });

const EventType = z.enum(WEBHOOK_EVENTS);

const CreateWebhookBody = z
  .strictObject({
    url: z
      .string()
      .max(MAX_WEBHOOK_URL_LENGTH)
      .openapi({ description: "https URL of a public host (private, loopback and link-local refused)" }),
    events: z.array(EventType).min(1).max(WEBHOOK_EVENTS.length),
    description: z.string().trim().max(200).optional(),
  })
  .openapi("CreateWebhook");

const webhookFields = {
  id: z.string(),
  url: z.string(),
  events: z.array(EventType),
  description: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.string(),
  secret_rotated_at: z.string().nullable(),
  carried_over: CarriedOverSchema,
};

const Webhook = z.object(webhookFields).openapi("Webhook");

const SecretField = z.string().openapi({
  description:
    "Standard Webhooks signing secret (`whsec_` + base64 of 32 bytes). Shown only here; store it now.",
});

const WebhookCreated = z.object({ ...webhookFields, secret: SecretField }).openapi("WebhookCreated");

const SecretRotated = z
  .object({ id: z.string(), secret: SecretField, secret_rotated_at: z.string() })
  .openapi("WebhookSecretRotated");

const WebhookDelivery = z
  .object({
    id: z.string(),
    event_id: z.string().openapi({ description: "The `webhook-id` header of every attempt" }),
    event_type: EventType,
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    failed_at: z.string().nullable(),
    attempt_log: z.array(
      z.object({
        attempt: z.number().int(),
        at: z.string(),
        status_code: z.number().int().nullable(),
        error: z.string().nullable(),
        duration_ms: z.number().int(),
      }),
    ),
  })
  .openapi("WebhookDelivery");

const PingResultSchema = z
  .object({
    event_id: z.string().openapi({ description: "The ping's webhook-id" }),
    delivered: z.boolean().openapi({ description: "The receiver answered 2xx" }),
    status_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The receiver's status; null when none" }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "http_<status>, timeout, destination_not_public, …" }),
    latency_ms: z.number().int(),
  })
  .openapi("WebhookPingResult");

const staffProblems = problemResponses({
  400: "Invalid body or query",
  401: "No signed-in staff session",
  404: "No such site or webhook, or the caller may not administer the site's webhooks (indistinguishable)",
});

const TAGS = ["Webhooks"];
const BASE = "/api/v1/sites/{site_id}/webhooks";

const createWebhookRoute = createRoute({
  method: "post",
  path: BASE,
  tags: TAGS,
  summary: "Register a signed webhook (the signing secret is shown once)",
  description: `Events: ${WEBHOOK_EVENTS.join(", ")}. At most ${MAX_WEBHOOKS_PER_SITE} webhooks per site.`,
  request: {
    params: SiteParam,
    body: { content: { "application/json": { schema: CreateWebhookBody } }, required: true },
  },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: WebhookCreated } } },
    ...staffProblems,
    ...problemResponses({
      409: "WEBHOOK_LIMIT_REACHED",
      422: "WEBHOOK_URL_NOT_PUBLIC: the host is or resolves to a non-public address",
    }),
  },
});

const listWebhooksRoute = createRoute({
  method: "get",
  path: BASE,
  tags: TAGS,
  summary: "List the site's webhooks (never their secrets)",
  request: { params: SiteParam },
  responses: {
    200: {
      description: "Webhooks, newest first",
      content: { "application/json": { schema: z.object({ items: z.array(Webhook) }) } },
    },
    ...staffProblems,
  },
});

const deleteWebhookRoute = createRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  tags: TAGS,
  summary: "Delete a webhook and its delivery log (pending deliveries are dropped)",
  request: { params: WebhookParam },
  responses: { 204: { description: "Deleted" }, ...staffProblems },
});

const keepWebhookRoute = createRoute({
  method: "post",
  path: `${BASE}/{id}/keep`,
  tags: TAGS,
  summary: "Keep a webhook a transfer carried over: delivered again, for the site's new owner",
  description:
    "After a transfer, the previous owner's webhooks are carried over (nothing delivered to them) until an administrator of the new owner keeps or deletes each one. Only a carried-over webhook can be kept; any other id is 404. Consider rotating its secret.",
  request: { params: WebhookParam },
  responses: {
    200: { description: "Kept", content: { "application/json": { schema: Webhook } } },
    ...staffProblems,
  },
});

const rotateWebhookSecretRoute = createRoute({
  method: "post",
  path: `${BASE}/{id}/rotate-secret`,
  tags: TAGS,
  summary: "Replace the signing secret (the old one stops signing at once; shown once)",
  request: { params: WebhookParam },
  responses: {
    200: { description: "Rotated", content: { "application/json": { schema: SecretRotated } } },
    ...staffProblems,
  },
});

const testWebhookRoute = createRoute({
  method: "post",
  path: `${BASE}/{id}/test`,
  tags: TAGS,
  summary: "Send a signed ping to the webhook now (the receiver's status and latency)",
  description: `A \`ping\` event (data: site_id, webhook_id), signed like every delivery and sent through the same URL checks; not logged as a delivery. The receiver's body is never read. At most ${PING_BUCKET.capacity} per webhook per minute (429 with Retry-After).`,
  request: { params: WebhookParam },
  responses: {
    200: {
      description: "The attempt's outcome",
      content: { "application/json": { schema: PingResultSchema } },
    },
    ...staffProblems,
    ...problemResponses({ 429: "More than 5 tests of this webhook in a minute" }),
  },
});

const listWebhookDeliveriesRoute = createRoute({
  method: "get",
  path: `${BASE}/{id}/deliveries`,
  tags: TAGS,
  summary: "The webhook's delivery log, newest first (attempts, status codes, times)",
  request: {
    params: WebhookParam,
    query: z.object({
      limit: integerQuery({ minimum: 1, maximum: DELIVERIES_MAX, default: DELIVERIES_DEFAULT }),
      cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
    }),
  },
  responses: {
    200: {
      description: "A page of deliveries",
      content: {
        "application/json": {
          schema: z.object({ items: z.array(WebhookDelivery), next_cursor: z.string().nullable() }),
        },
      },
    },
    ...staffProblems,
  },
});

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>) {
  registerWebhookEventDocs(app);
  app.openapi(createWebhookRoute, async (c) => {
    const { userId, site } = await authorizeSiteAdmin(c);
    const created = await createWebhook(c.env, c.get("services").webhooks, site, userId, c.req.valid("json"));
    c.header("cache-control", "no-store");
    return c.json(created, 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    c.header("cache-control", "private, no-store");
    return c.json({ items: await listWebhooks(c.env.DB, site.id) }, 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    await deleteSiteWebhook(c.env.DB, site.id, c.req.valid("param").id);
    return c.body(null, 204);
  });

  app.openapi(keepWebhookRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const id = await keepWebhook(c.env.DB, site.id, c.req.valid("param").id);
    const [kept] = await listWebhooks(c.env.DB, site.id, id);
    // Revoked or deleted between the keep and this read: gone, as any other id.
    if (!kept) fail("NOT_FOUND", "No such carried-over webhook.");
    c.header("cache-control", "private, no-store");
    return c.json(kept, 200);
  });

  app.openapi(rotateWebhookSecretRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const rotated = await rotateWebhookSecret(c.env, site.id, c.req.valid("param").id);
    c.header("cache-control", "no-store");
    return c.json(rotated, 200);
  });

  app.openapi(testWebhookRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const result = await pingWebhook(c.env, c.get("services").webhooks, site.id, c.req.valid("param").id);
    c.header("cache-control", "no-store");
    return c.json(result, 200);
  });

  app.openapi(listWebhookDeliveriesRoute, async (c) => {
    const { site } = await authorizeSiteAdmin(c);
    const page = await listWebhookDeliveries(
      c.env.DB,
      site.id,
      c.req.valid("param").id,
      c.req.valid("query"),
    );
    c.header("cache-control", "private, no-store");
    return c.json(page, 200);
  });
}
