/** Media assets: upload (`POST /v1/media`), list, get, soft delete. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { includeQuery } from "../core/list-include";
import { problem } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth, requireKey, security } from "../keys/middleware";
import { deleteMediaAsset } from "./deletion";
import { editMediaAsset, LIST_DEFAULT, LIST_MAX, listMediaAssets, readMediaAsset } from "./listing";
import type { MediaRow } from "./store";
import { ALT_MAX, CAPTION_MAX, readUploadForm, uploadMedia } from "./upload";
import { parseVariants, type VariantFailure } from "./variants";

const MediaVariantSchema = z
  .object({
    name: z.string().openapi({ description: "`original`, or `{width}w-{ext}` (e.g. `640w-webp`)" }),
    url: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    content_type: z.string(),
    size_bytes: z.number().int(),
  })
  .openapi("MediaVariant");

export const MediaAssetSchema = z
  .object({
    id: z.string(),
    status: z.enum(["processing", "ready", "failed"]).openapi({
      description: "processing until the variants are generated; then ready, or failed (see failure_reason)",
    }),
    failure_reason: z
      .enum(["undecodable", "too_large", "processing_failed", "original_missing"])
      .nullable()
      .openapi({ description: "Why variant generation failed; null unless status is failed" }),
    url: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    width: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Pixel width of the original (null until known)" }),
    height: z.number().int().nullable(),
    folder_id: z.string().nullable(),
    tag_ids: z.array(z.string()),
    variants: z.array(MediaVariantSchema).openapi({
      description:
        "The original first, then widths 320/640/1280 below the original's width, each in WebP and the original's format",
    }),
    alt: z.string().nullable().openapi({
      description:
        "Alt text (0-500 characters; null when not given): a post's featured_image.alt and its <img alt>",
    }),
    caption: z
      .string()
      .nullable()
      .openapi({ description: "Caption (0-1000 characters; null when not given)" }),
    created_at: z.string(),
  })
  .openapi("MediaAsset");

function asset(c: Context<AppEnv>, row: MediaRow) {
  return {
    id: row.id,
    status: row.status as "processing" | "ready" | "failed",
    failure_reason: row.failure_reason as VariantFailure | null,
    url: `${c.env.MEDIA_PUBLIC_BASE}/${row.r2_key}`,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    folder_id: row.folder_id,
    tag_ids: row.tag_ids ? row.tag_ids.split(",").sort() : [],
    variants: parseVariants(row.variants_json),
    alt: row.alt,
    caption: row.caption,
    created_at: row.created_at,
  };
}

function mediaNotFound(): ApiError {
  return problem("NOT_FOUND", "No such media asset.");
}

/** The upload form (the handler reads it with `readUploadForm`; also upload_media_from_url's fields). */
export const UploadForm = z.object({
  file: z.string().openapi({ format: "binary" }),
  folder_id: z.string().optional(),
  tag_id: z.string().optional(),
  alt: z.string().max(ALT_MAX).optional().openapi({ description: "Alt text, 0-500 characters" }),
  caption: z.string().max(CAPTION_MAX).optional().openapi({ description: "Caption, 0-1000 characters" }),
});

/** `PATCH /v1/media/{id}`: the asset's texts; only sent fields change, null (or "") clears one. */
export const UpdateMediaSchema = z
  .strictObject({
    alt: z.string().max(ALT_MAX).nullable(),
    caption: z.string().max(CAPTION_MAX).nullable(),
  })
  .partial()
  .openapi("UpdateMedia");

const UPLOAD_KEY: KeyRequirement = { kinds: "secret", scopes: ["media:write"], quota: "write" };

export const MediaListQuery = z.object({
  limit: integerQuery({ minimum: 1, maximum: LIST_MAX, default: LIST_DEFAULT }),
  folder_id: z.string().optional(),
  tag_id: z.string().optional(),
  include: includeQuery(),
  key: z.string().optional(),
});

/** The list's answer: `total` only with include=total. */
export const MediaListSchema = z
  .object({
    items: z.array(MediaAssetSchema),
    total: z.number().int().optional().openapi({
      description: "With include=total: how many assets the filters match in all (the list stops at limit)",
    }),
  })
  .openapi("MediaList");

export const MediaIdParam = z.object({ id: z.string().openapi({ description: "Media id (ULID or UUID)" }) });

const listMediaRoute = createRoute({
  method: "get",
  path: "/v1/media",
  tags: ["Media"],
  summary: "List media assets (newest first, no cursor)",
  description:
    "Scope media:read (ck_ or pk_). A pk_ key lists only assets public posts use (featured image or image block); ck_ keys list every asset.",
  ...keyAuth({ kinds: "any", scopes: ["media:read"], quota: "read" }),
  request: {
    query: MediaListQuery,
  },
  responses: {
    200: {
      description: "Assets",
      content: { "application/json": { schema: MediaListSchema } },
    },
    ...problemResponses({
      400: "Bad limit, filter or include",
      401: "Key",
      403: "Scope or origin",
      429: "Quota",
    }),
  },
});

const getMediaRoute = createRoute({
  method: "get",
  path: "/v1/media/{id}",
  tags: ["Media"],
  summary: "Get a media asset",
  description:
    "Scope media:read (ck_ or pk_). Another site's id is 404; so is, for a pk_ key, an asset no public post uses.",
  ...keyAuth({ kinds: "any", scopes: ["media:read"], quota: "read" }),
  request: { params: MediaIdParam, query: z.object({ key: z.string().optional() }) },
  responses: {
    200: { description: "The asset", content: { "application/json": { schema: MediaAssetSchema } } },
    ...problemResponses({ 401: "Key", 403: "Scope or origin", 404: "No such asset", 429: "Quota" }),
  },
});

const deleteMediaRoute = createRoute({
  method: "delete",
  path: "/v1/media/{id}",
  tags: ["Media"],
  summary: "Delete a media asset (soft delete)",
  description:
    "Scope media:write (ck_). Another site's id is 404. The public URLs of the original and of every variant answer 404 at once and are purged from the CDN.",
  ...keyAuth({ kinds: "secret", scopes: ["media:write"], quota: "write" }),
  request: { params: MediaIdParam },
  responses: {
    204: { description: "Deleted" },
    ...problemResponses({ 401: "Key", 403: "Scope", 404: "No such asset", 429: "Quota" }),
  },
});

const updateMediaRoute = createRoute({
  method: "patch",
  path: "/v1/media/{id}",
  tags: ["Media"],
  summary: "Edit a media asset's alt text and caption",
  description:
    "Scope media:write (ck_). Only sent fields change: `alt` (0-500 characters) and `caption` (0-1000); null or an empty string clears one. A post's featured_image.alt and the <img alt> of its body use the alt text (the post's title, or the image block's caption, without one). Another site's id is 404.",
  ...keyAuth({ kinds: "secret", scopes: ["media:write"], quota: "write" }),
  request: {
    params: MediaIdParam,
    body: { content: { "application/json": { schema: UpdateMediaSchema } }, required: true },
  },
  responses: {
    200: { description: "The asset", content: { "application/json": { schema: MediaAssetSchema } } },
    ...mediaEditProblems(),
  },
});

/** The refusals of an asset's edit. */
export function mediaEditProblems() {
  return problemResponses({
    400: "Invalid body (an unknown field is named in details.path), or nothing editable",
    401: "Key",
    403: "Scope, or not a ck_ key",
    404: "No such asset",
    429: "Quota",
  });
}

/**
 * The media handlers, shared by the `/v1` key routes and the dashboard routes
 * (`/api/v1/sites/{site_id}/media…`, src/content/dashboard/): the same functions whoever acts.
 */
export async function uploadMediaAnswer(c: Context<AppEnv>): Promise<Response> {
  const upload = await readUploadForm(c.req.raw);
  return c.json(asset(c, await uploadMedia(c.env, c.get("auth").siteId, upload)), 202);
}

export async function listMediaAnswer(c: Context<AppEnv>, query: z.infer<typeof MediaListQuery>) {
  const { rows, total } = await listMediaAssets(c.env.DB, c.get("auth"), query);
  return c.json({ items: rows.map((r) => asset(c, r)), ...(total !== null ? { total } : {}) }, 200);
}

export async function updateMediaAnswer(
  c: Context<AppEnv>,
  rawId: string,
  body: z.infer<typeof UpdateMediaSchema>,
) {
  return c.json(asset(c, await editMediaAsset(c.env.DB, c.get("auth").siteId, rawId, body)), 200);
}

export async function mediaAssetAnswer(c: Context<AppEnv>, rawId: string) {
  return c.json(asset(c, await readMediaAsset(c.env.DB, c.get("auth"), rawId)), 200);
}

export async function deleteMediaAnswer(c: Context<AppEnv>, rawId: string) {
  const id = parseId(rawId);
  const deleted = id !== null && (await deleteMediaAsset(c.env, c.get("services"), c.get("auth").siteId, id));
  if (!deleted) throw mediaNotFound();
  return c.body(null, 204);
}

/** The upload's multipart body, declared for the document (the handler reads it with `readUploadForm`). */
export const UPLOAD_BODY = {
  required: true,
  content: { "multipart/form-data": { schema: UploadForm } },
};

export const uploadProblems = problemResponses({
  400: "No file field, or a bad folder_id/tag_id",
  401: "Key missing or invalid",
  403: "Scope, or not a ck_ key",
  413: "Body above 8 MiB",
  415: "Unsupported media type",
  429: "Quota",
});

export function registerMediaRoutes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/media",
    tags: ["Media"],
    summary: "Upload a media asset",
    description:
      "Scope media:write (ck_). multipart/form-data with the field `file` (optional `folder_id`, repeatable `tag_id`, `alt` up to 500 characters, `caption` up to 1000). The type comes from the bytes (PNG, JPEG, GIF, WebP, AVIF, ICO, sanitized SVG). Variants are generated asynchronously: the answer has status processing.",
    security: security(UPLOAD_KEY.kinds, UPLOAD_KEY.scopes),
    request: { body: UPLOAD_BODY },
    responses: {
      202: {
        description: "Accepted (processing)",
        content: { "application/json": { schema: MediaAssetSchema } },
      },
      ...uploadProblems,
    },
  });
  app.post("/v1/media", requireKey(UPLOAD_KEY), uploadMediaAnswer);
  app.openapi(listMediaRoute, (c) => listMediaAnswer(c, c.req.valid("query")));
  app.openapi(getMediaRoute, (c) => mediaAssetAnswer(c, c.req.valid("param").id));
  app.openapi(updateMediaRoute, (c) => updateMediaAnswer(c, c.req.valid("param").id, c.req.valid("json")));
  app.openapi(deleteMediaRoute, (c) => deleteMediaAnswer(c, c.req.valid("param").id));
}
