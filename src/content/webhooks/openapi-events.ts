/**
 * The events a registered webhook receives, in the OpenAPI document's `webhooks` section (OpenAPI 3.1):
 * one POST per event type with its Standard Webhooks headers and payload. The payloads are built in
 * `src/content/webhooks/events.ts`; docs/decisions/content.md has the delivery contract.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../core/bindings";

const SignatureHeaders = z.object({
  "webhook-id": z.string().openapi({
    description: "The event's id: the same on every retry and for every webhook; deduplicate by it.",
  }),
  "webhook-timestamp": z
    .string()
    .openapi({ description: "Unix seconds of this attempt (reject if far from now)" }),
  "webhook-signature": z.string().openapi({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` over "{webhook-id}.{webhook-timestamp}.{raw body}", keyed with the base64-decoded part of the `whsec_` secret.',
  }),
});

const PostEventData = z
  .object({
    site_id: z.string(),
    post_id: z.string(),
    slug: z.string(),
    language: z.string(),
    url: z.string().nullable().openapi({
      description: "Public URL (for post.unpublished: the page that left); null without a domain",
    }),
    post_type: z.string(),
    title: z.string(),
    status: z.enum(["draft", "scheduled", "published", "archived", "deleted"]),
    published_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi("PostEventData");

const MediaReadyData = z
  .object({
    site_id: z.string(),
    media_id: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    folder_id: z.string().nullable(),
    url: z.string(),
    variants: z.array(z.object({ name: z.string(), url: z.string() })),
  })
  .openapi("MediaReadyData");

const LeadCreatedData = z
  .object({
    site_id: z.string(),
    lead_id: z.string(),
    form_id: z.string(),
    fields: z
      .record(z.string(), z.unknown())
      .openapi({ description: "The submitted values (personal data)" }),
    page_url: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("LeadCreatedData");

const EVENTS = [
  { type: "post.published", data: PostEventData, summary: "A post entered public view" },
  { type: "post.updated", data: PostEventData, summary: "A published public post changed (fields or SEO)" },
  { type: "post.unpublished", data: PostEventData, summary: "A post left public view" },
  {
    type: "post.deleted",
    data: PostEventData,
    summary: "A post was deleted (any status before; slug and url as they were)",
  },
  { type: "media.ready", data: MediaReadyData, summary: "A media asset's variants are ready" },
  {
    type: "lead.created",
    data: LeadCreatedData,
    summary:
      "A clean form lead was received (personal data): only to webhooks whose creator may read leads; every delivery is audited",
  },
] as const;

export function registerWebhookEventDocs(app: OpenAPIHono<AppEnv>) {
  for (const event of EVENTS) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: event.type,
      tags: ["Webhooks"],
      summary: event.summary,
      description:
        "Sent to every webhook of the site subscribed to this event. Answer 2xx within 15 s; anything else (3xx included: redirects are not followed) is retried 7 times with exponential backoff, except 410 Gone.",
      request: {
        headers: SignatureHeaders,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({ type: z.literal(event.type), timestamp: z.string(), data: event.data }),
            },
          },
        },
      },
      responses: { 204: { description: "Received (any 2xx)" } },
    });
  }
}
