/**
 * The events content emits on the `content-events` queue and delivers as signed webhooks. An event on
 * the queue is flat (`id`, `type`, `site_id`, `occurred_at` and the type's fields: the shape
 * `post.unpublished` always had, so rows written by older code still deliver); the webhook body is the
 * Standard Webhooks payload `{"type","timestamp","data"}` with everything else in `data`, and the
 * event's `id` travels as `webhook-id`.
 */
import { newId } from "../../lib/ids";
import type { SiteProjection } from "../../lib/rpc";
import { tracedMessage } from "../../lib/trace";
import { postUrl } from "../core/effects/outbound";
import type { PostRow } from "../posts/store";

export const WEBHOOK_EVENTS = [
  "post.published",
  "post.updated",
  "post.unpublished",
  "post.deleted",
  "media.ready",
  "lead.created",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export interface ContentEvent {
  /** Unique per event: delivery is at least once, consumers deduplicate by it (`webhook-id`). */
  id: string;
  type: string;
  site_id: string;
  occurred_at?: string;
  [field: string]: unknown;
}

/** `post.deleted`: a post soft-deleted (DELETE /v1/posts/{reference}); `url` is the page that left. */
export type PostEventType = "post.published" | "post.updated" | "post.unpublished" | "post.deleted";

/** A post event. `post` is the post as the event leaves it, except `url` (and slug, language) of an unpublication: the page that left. */
export function postEvent(
  type: PostEventType,
  site: Pick<SiteProjection, "id" | "primary_domain" | "default_language" | "slug">,
  post: PostRow,
  now: string,
  platformDomain: string,
  page: Pick<PostRow, "slug" | "language" | "fields"> = post,
): ContentEvent {
  return {
    id: newId(),
    type,
    site_id: site.id,
    post_id: post.id,
    slug: page.slug,
    language: page.language,
    url: postUrl(site, page, platformDomain),
    post_type: post.post_type,
    title: post.title,
    status:
      post.status === "scheduled" && post.published_at !== null && post.published_at <= now
        ? "published"
        : post.status,
    published_at: post.published_at,
    updated_at: post.updated_at,
    occurred_at: now,
  };
}

type ReadyMedia = {
  id: string;
  site_id: string;
  r2_key: string;
  content_type: string;
  size_bytes: number;
  folder_id: string | null;
};

/**
 * `media.ready`, once per asset: its id is derived from the media id, so a variants message handled
 * twice emits the same event and the fan-out (one delivery per event and webhook) sends it once.
 */
export function mediaReadyEvent(
  media: ReadyMedia,
  url: string,
  variants: { name: string; url: string }[],
  now: string,
): ContentEvent {
  return {
    id: `media-ready-${media.id}`,
    type: "media.ready",
    site_id: media.site_id,
    media_id: media.id,
    content_type: media.content_type,
    size_bytes: media.size_bytes,
    folder_id: media.folder_id,
    url,
    variants,
    occurred_at: now,
  };
}

/**
 * `lead.created`, once per lead (its id is derived from the lead's): personal data, delivered only to
 * webhooks whose creator may read leads, each attempt audited (webhooks/delivery.ts).
 */
export function leadCreatedEvent(lead: {
  id: string;
  site_id: string;
  form_id: string;
  fields: Record<string, unknown>;
  page_url: string | null;
  created_at: string;
}): ContentEvent {
  return {
    id: `lead-created-${lead.id}`,
    type: "lead.created",
    site_id: lead.site_id,
    lead_id: lead.id,
    form_id: lead.form_id,
    fields: lead.fields,
    page_url: lead.page_url,
    created_at: lead.created_at,
    occurred_at: lead.created_at,
  };
}

export function isContentEvent(body: unknown): body is ContentEvent {
  if (typeof body !== "object" || body === null) return false;
  const event = body as Record<string, unknown>;
  return typeof event.id === "string" && typeof event.type === "string" && typeof event.site_id === "string";
}

/** The exact bytes a receiver gets (and the signature covers): `{"type","timestamp","data"}`. */
export function webhookBody(event: ContentEvent, now: string): string {
  const { id: _id, type, occurred_at, ...data } = event;
  return JSON.stringify({ type, timestamp: occurred_at ?? now, data });
}

/** Emits `media.ready` for an asset whose variants are ready (call it where the asset becomes ready). */
export async function emitMediaReady(
  env: { CONTENT_EVENTS: Queue; MEDIA_PUBLIC_BASE: string },
  media: ReadyMedia,
  variants: { name: string; url: string }[],
): Promise<void> {
  const url = `${env.MEDIA_PUBLIC_BASE}/${media.r2_key}`;
  await env.CONTENT_EVENTS.send(
    tracedMessage(mediaReadyEvent(media, url, variants, new Date().toISOString())),
  );
}
