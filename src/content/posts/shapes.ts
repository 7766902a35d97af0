/** Wire shapes of posts (zod, so the OpenAPI document is the code) and the serializers from rows. */
import { z } from "@hono/zod-openapi";
import type { SiteProjection } from "../../lib/rpc";
import { postUrl } from "../core/effects/outbound";
import { imageView } from "../media/image-view";
import type { MediaImageRow } from "../media/media-image";
import { ConversionSchema } from "./convert/body";
import {
  effectiveStatus,
  LISTABLE_STATUSES,
  type ListableStatus,
  type PostRow,
  readUpdatedAt,
} from "./store";

/** Strict (issue 33): a key outside this list is refused (400 BAD_REQUEST naming it), never ignored. */
export const PostSeoSchema = z
  .strictObject({
    meta_title: z.string().max(300).nullable(),
    meta_description: z.string().max(1000).nullable(),
    canonical_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .nullable(),
    og_title: z.string().max(300).nullable(),
    og_description: z.string().max(1000).nullable(),
    og_image: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .nullable(),
    twitter_card: z.enum(["summary", "summary_large_image"]).nullable(),
    noindex: z.boolean().nullable(),
    focus_keyword: z.string().max(200).nullable(),
  })
  .partial()
  .openapi("PostSeo");

/** SEO keys a client may set on a post (merged into its seo_json); taxonomy is edited via the post itself. */
export const POST_SEO_KEYS = PostSeoSchema.keyof().options;

const Author = z
  .object({ slug: z.string(), display_name: z.string() })
  .nullable()
  .openapi({ description: "The author persona; null only on posts written before personas existed" });
const ImageVariantSchema = z.object({
  width: z.number().int().nullable().openapi({ description: "Pixel width; null while unknown" }),
  url: z.string(),
  format: z.string().openapi({ description: "MIME type, e.g. image/webp", example: "image/webp" }),
});

export const FeaturedImageSchema = z
  .object({
    id: z.string(),
    url: z.string().openapi({ description: "The original, on the public media origin" }),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    alt: z.string().openapi({
      description:
        "The media asset's alt text (PATCH /v1/media/{id}); the post's title when the asset has none",
    }),
    caption: z
      .string()
      .nullable()
      .openapi({ description: "The media asset's caption; null when it has none" }),
    srcset: z.string().openapi({
      description:
        "For <img srcset>: the renditions in the original's format (WebP for GIF and WebP originals) and the original, `url {w}w` narrowest first; the bare original URL while its width is unknown",
    }),
    variants: z.array(ImageVariantSchema).openapi({
      description:
        "Every rendition, the original included, narrowest first; only the original while the asset is processing",
    }),
  })
  .nullable()
  .openapi("FeaturedImage", {
    description:
      "The post's cover from its media asset's ready variants (the original while they are pending); null when the post has none or the asset was deleted",
  });

/** Who made something (issue 34): an API key or a signed-in person; null when it was not recorded. */
export const ActorSchema = z
  .object({
    kind: z.enum(["key", "person"]),
    id: z.string().openapi({ description: "The API key's id, or the person's user id" }),
    name: z.string().nullable().openapi({
      description: "The key's name, or the person's display name, at the time; null when not recorded",
    }),
  })
  .nullable()
  .openapi("PostActor");

const ReviewRequested = z.boolean().openapi({
  description:
    "A draft its creator marked ready for an editor's review (dashboard PATCH `review_requested`); cleared when published",
});

const Status = z.enum(LISTABLE_STATUSES);
const Access = z.enum(["public", "restricted"]);

export const PostListItemSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    url: z.string().openapi({
      description:
        "Absolute public URL of the post: https://{canonical host}/{slug} in the site's default language, /{language}/{slug} otherwise. Drafts, scheduled and archived posts carry the URL they have (or will have) when public.",
      example: "https://blog.example.com/hello-world",
    }),
    title: z.string(),
    summary: z.string().nullable(),
    published_at: z.string().nullable(),
    updated_at: z.string(),
    language: z.string(),
    post_type: z.string(),
    author: Author,
    featured_image_id: z.string().nullable(),
    featured_image: FeaturedImageSchema,
    category_slugs: z.array(z.string()),
    tag_slugs: z.array(z.string()),
  })
  .openapi("PostListItem");

export const PostSummarySchema = PostListItemSchema.extend({
  status: Status,
  access: Access,
  created_at: z.string(),
  review_requested: ReviewRequested,
}).openapi("PostSummary");

/** What a write kept as sent without using it (issue 33): fields no block of blocks_json declares. */
const WriteWarningsSchema = z
  .array(z.object({ path: z.string(), message: z.string() }))
  .optional()
  .openapi({
    description:
      "Fields of blocks_json no block type declares, stored as sent but not rendered (JSON path and why); absent when there are none",
  });

/** The answer of a post write (create, PATCH): the PostSummary, with `warnings` when some were kept. */
export const PostWriteAnswerSchema = PostSummarySchema.extend({
  warnings: WriteWarningsSchema,
  conversion: ConversionSchema,
}).openapi("PostWriteAnswer");

/** `{warnings}` when there are any, else nothing (the member is absent when empty). */
export function warningsMember<T>(warnings: readonly T[]): { warnings?: T[] } {
  return warnings.length > 0 ? { warnings: [...warnings] } : {};
}

/** A category or tag of a post detail: its slug, the name the site gave it (else the slug in words), its description. */
const PostTermSchema = z
  .object({ slug: z.string(), name: z.string(), description: z.string().nullable() })
  .openapi("PostTerm");

export const PostDetailSchema = PostListItemSchema.extend({
  content_html: z.string(),
  featured_image_url: z.string().nullable(),
  categories: z.array(PostTermSchema).openapi({
    description: "category_slugs with their names and descriptions (PATCH /v1/categories/{slug}), in order",
  }),
  tags: z.array(PostTermSchema).openapi({
    description: "tag_slugs with their names and descriptions (PATCH /v1/tags/{slug}), in order",
  }),
  seo: PostSeoSchema.optional(),
}).openapi("PostDetail", {
  description:
    "`seo` only for a key with seo:read (as GET /v1/posts/{reference}/seo); absent for a key without it",
});

export const PostSourceSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    summary: z.string().nullable(),
    status: Status,
    access: Access,
    published_at: z.string().nullable(),
    language: z.string(),
    post_type: z.string(),
    author_slug: z.string().nullable(),
    featured_image_id: z.string().nullable(),
    category_slugs: z.array(z.string()),
    tag_slugs: z.array(z.string()),
    blocks_json: z
      .unknown()
      .openapi({ description: "The Editor.js document exactly as stored; null when absent" }),
    created_at: z.string(),
    updated_at: z.string(),
    review_requested: ReviewRequested,
    created_by: ActorSchema.openapi({
      description: "Who created the post: the API key (by its name then) or the signed-in person",
    }),
    updated_by: ActorSchema.openapi({
      description: "Who changed the post last; null when nobody has since this was recorded (issue 34)",
    }),
  })
  .openapi("PostSource");

export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({ items: z.array(item), next_cursor: z.string().nullable() })
    .openapi(name, { description: "next_cursor is null on the last page" });
}

/** A keyset page whose `total` (include=total) counts every item the filters match. */
export function totalPageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      next_cursor: z.string().nullable(),
      total: z.number().int().optional().openapi({
        description: "With include=total: how many items the filters match in all (not the page)",
      }),
    })
    .openapi(name, { description: "next_cursor is null on the last page" });
}

export function parseSeo(row: Pick<PostRow, "seo_json">): Record<string, unknown> {
  try {
    const value = JSON.parse(row.seo_json) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function taxonomy(row: Pick<PostRow, "seo_json">) {
  const seo = parseSeo(row);
  return { category_slugs: stringList(seo.category_slugs), tag_slugs: stringList(seo.tag_slugs) };
}

export function seoView(row: Pick<PostRow, "seo_json">): Record<string, unknown> {
  const seo = parseSeo(row);
  return Object.fromEntries(POST_SEO_KEYS.map((k) => [k, seo[k] ?? null]));
}

/** What a post's public `url` is built from: the key's site (one read per request) and the platform domain. */
export interface PostUrlContext {
  site: Pick<SiteProjection, "primary_domain" | "slug" | "default_language">;
  platformDomain: string;
  /** MEDIA_PUBLIC_BASE: the public origin of media URLs. */
  mediaBase: string;
}

/** The featured image of a row that selected `featured_media` (FEATURED_MEDIA_SQL), or null. */
export function featuredImage(row: PostRow, mediaBase: string) {
  if (!row.featured_image_id || !row.featured_media) return null;
  let media: MediaImageRow;
  try {
    media = JSON.parse(row.featured_media) as MediaImageRow;
  } catch {
    return null;
  }
  return imageView(mediaBase, media, row.title);
}

export function listItem(row: PostRow, now: string, at: PostUrlContext) {
  return {
    id: row.id,
    slug: row.slug,
    url: postUrl(at.site, row, at.platformDomain),
    title: row.title,
    summary: row.summary,
    published_at: row.published_at,
    updated_at: readUpdatedAt(row, now),
    language: row.language,
    post_type: row.post_type,
    author: row.author_slug
      ? { slug: row.author_slug, display_name: row.author_name ?? row.author_slug }
      : null,
    featured_image_id: row.featured_image_id,
    featured_image: featuredImage(row, at.mediaBase),
    ...taxonomy(row),
  };
}

export function postSummary(row: PostRow, now: string, at: PostUrlContext) {
  return {
    ...listItem(row, now, at),
    status: effectiveStatus(row, now) as ListableStatus,
    access: row.access,
    created_at: row.created_at,
    review_requested: row.review_requested === 1,
  };
}
