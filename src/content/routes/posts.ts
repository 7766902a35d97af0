/** Single-post operations: create, read, update, unpublish, editable source, post SEO. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { ApiError } from "../../lib/problem";
import { type KeyRequirement, keySite } from "../auth/api-key";
import { sha256Base64url } from "../auth/key-hash";
import { keyAuth, requireKey, security } from "../auth/middleware";
import type { AppEnv } from "../bindings";
import { createPost, editPost, unpublishPost, updatePost } from "../post-service";
import { parseBlocksDocument, renderBlocks } from "../render/render-blocks";
import { CreatePostSchema, UpdatePostSchema } from "../rules/post-input";
import { languageParam, resolveEditablePost, resolvePublicPost } from "../rules/resolve";
import {
  beginIdempotent,
  canonicalJson,
  parseIdempotencyKey,
  type StoredResponse,
} from "../store/idempotency";
import { mediaKeys, type PostRow } from "../store/posts";
import { sendCacheable } from "./cacheable";
import {
  listItem,
  POST_SEO_KEYS,
  PostDetailSchema,
  PostSeoSchema,
  PostSourceSchema,
  PostSummarySchema,
  parseSeo,
  postSummary,
  seoView,
  taxonomy,
} from "./post-shapes";

const RefParam = z.object({
  reference: z.string().min(1).openapi({ description: "ULID, UUID or slug" }),
});
const LanguageQuery = z.object({
  language: z.string().optional().openapi({ description: "BCP-47; disambiguates a slug (ignored for ids)" }),
});
const PublicReadQuery = LanguageQuery.extend({
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Parses a JSON body with a zod schema; anything malformed is a 400 problem. */
async function parseJsonBody<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<z.infer<T>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ApiError(400, "BAD_REQUEST", { detail: "The body must be a JSON object." });
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    throw new ApiError(400, "BAD_REQUEST", { detail: `${where}${issue?.message ?? "invalid body"}` });
  }
  return result.data;
}

function respond(c: Context<AppEnv>, stored: StoredResponse, replayed: boolean): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=UTF-8" };
  if (stored.location) headers.location = stored.location;
  if (replayed) headers["idempotency-replayed"] = "true";
  return c.body(stored.body, stored.status as 201, headers);
}

function mediaIdsOf(blocksJson: string | null): string[] {
  if (!blocksJson) return [];
  const doc = parseBlocksDocument(blocksJson);
  if (!doc.ok) return [];
  return doc.blocks
    .filter((b) => b.type === "image" && typeof b.data.media_id === "string")
    .map((b) => b.data.media_id as string);
}

async function postDetail(c: Context<AppEnv>, row: PostRow) {
  const ids = mediaIdsOf(row.blocks_json);
  if (row.featured_image_id) ids.push(row.featured_image_id);
  const keys = await mediaKeys(c.env.DB, row.site_id, ids);
  const mediaUrl = (id: string) => {
    const key = keys.get(id.toUpperCase()) ?? keys.get(id);
    return key ? `${c.env.MEDIA_PUBLIC_BASE}/${key}` : null;
  };
  return {
    ...listItem(row),
    content_html: row.blocks_json ? renderBlocks(row.blocks_json, { mediaUrl }) : "",
    featured_image_url: row.featured_image_id ? mediaUrl(row.featured_image_id) : null,
    seo: seoView(row),
  };
}

/** `{reference}` and `?language=` of a single-post route, in the order the resolvers take them. */
function postReference(c: {
  req: { param(name: "reference"): string; query(name: "language"): string | undefined };
}): [reference: string, language: string | null] {
  return [c.req.param("reference"), languageParam(c.req.query("language"))];
}

const CREATE_POST_KEY: KeyRequirement = { kinds: "secret", scopes: ["posts:write"], quota: "write" };

const writeProblems = problemResponses({
  400: "Invalid body or parameter",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  404: "No such post (or another site's)",
  429: "Quota exceeded",
});

export function registerPostRoutes(app: OpenAPIHono<AppEnv>) {
  const createPostRoute = createRoute({
    method: "post",
    path: "/v1/posts",
    tags: ["Posts"],
    summary: "Create a post",
    description:
      "Scope posts:write (ck_). Idempotency-Key: same key + same body replays the original 201 with Idempotency-Replayed: true; same key + other body is 422 IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_IN_PROGRESS. A taken explicit slug is 409 SLUG_TAKEN; a derived slug gets -2, -3, …",
    security: security(CREATE_POST_KEY.kinds, CREATE_POST_KEY.scopes),
    request: {
      headers: z.object({ "idempotency-key": z.string().optional() }),
      body: { content: { "application/json": { schema: CreatePostSchema } }, required: true },
    },
    responses: {
      // A $ref rather than the zod schema: the handler also answers replays as a raw Response.
      201: {
        description: "Created (or the original 201 replayed, with Idempotency-Replayed: true)",
        content: { "application/json": { schema: { $ref: "#/components/schemas/PostSummary" } } },
      },
      ...writeProblems,
      ...problemResponses({
        409: "Slug taken, or the same Idempotency-Key is in progress",
        422: "Key without authorship context, Idempotency-Key reused with another body, unknown post type or media",
      }),
    },
  });
  // Declared in the registry and served by a plain handler: replays answer with the stored raw body.
  app.openAPIRegistry.registerPath(createPostRoute);
  app.post("/v1/posts", requireKey(CREATE_POST_KEY), async (c) => {
    const auth = c.get("auth");
    if (!auth.createdBy) {
      throw new ApiError(422, "NO_AUTHORSHIP_CONTEXT", {
        detail:
          "This key has no authorship context (created before keys recorded their creator); create a new key.",
      });
    }
    const input = await parseJsonBody(c, CreatePostSchema);
    const idempotencyKey = parseIdempotencyKey(c.req.header("idempotency-key"));
    if (!idempotencyKey) return respond(c, await createPost(c.env, auth, input), false);
    const hash = await sha256Base64url(canonicalJson(input));
    const start = await beginIdempotent(c.env, auth.keyId, idempotencyKey, hash);
    if (start.kind === "replay") return respond(c, start.response, true);
    let stored: StoredResponse;
    try {
      stored = await createPost(c.env, auth, input, start.recordStatement);
    } catch (error) {
      await start.abort();
      throw error;
    }
    // The D1 record written with the post is the source of truth; the DO and KV copies only speed up
    // replays, so failing to write them must not turn a created post into an error answer.
    await start.finish(stored).catch((error: unknown) => {
      c.get("log").warn("idempotency_cache_not_updated", { error: String(error) });
    });
    return respond(c, stored, false);
  });

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/posts/{reference}",
      tags: ["Posts"],
      summary: "Get a public post (PostDetail)",
      description:
        "Scope posts:read (ck_ or pk_). Draft, scheduled, restricted and other-site posts are 404.",
      ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
      request: { params: RefParam, query: PublicReadQuery },
      responses: {
        200: json(PostDetailSchema, "The post"),
        304: { description: "Not modified" },
        ...writeProblems,
      },
    }),
    async (c) => {
      const site = await keySite(c.env.DB, c.get("auth"));
      const row = await resolvePublicPost(c.env.DB, site, ...postReference(c), new Date().toISOString());
      return sendCacheable(c, await postDetail(c, row));
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/posts/{reference}",
      tags: ["Posts"],
      summary: "Update a post (partial)",
      description:
        "Scope posts:write (ck_). Slug references find published posts first, then all drafts and scheduled posts; archived posts by id only; a slug in several languages without ?language= is 400 AMBIGUOUS_SLUG.",
      ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "write" }),
      request: {
        params: RefParam,
        query: LanguageQuery,
        body: { content: { "application/json": { schema: UpdatePostSchema } }, required: true },
      },
      responses: {
        200: json(PostSummarySchema, "Updated"),
        ...writeProblems,
        ...problemResponses({
          409: "Slug taken (SLUG_TAKEN), or the post kept changing concurrently (EDIT_CONFLICT)",
          422: "Unknown post type or media",
        }),
      },
    }),
    async (c) => {
      const row = await updatePost(
        c.env,
        c.get("services"),
        c.get("auth"),
        ...postReference(c),
        c.req.valid("json"),
      );
      return c.json(postSummary(row, new Date().toISOString()), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/posts/{reference}/unpublish",
      tags: ["Posts"],
      summary: "Unpublish a post (published -> archived)",
      description:
        "Scope posts:write (ck_). Emits post.unpublished on the content-events queue and purges the page.",
      ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "write" }),
      request: { params: RefParam, query: LanguageQuery },
      responses: {
        200: json(PostSummarySchema, "Archived"),
        ...writeProblems,
        ...problemResponses({ 409: "The post is not published" }),
      },
    }),
    async (c) => {
      const row = await unpublishPost(c.env, c.get("services"), c.get("auth"), ...postReference(c));
      return c.json(postSummary(row, new Date().toISOString()), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/posts/{reference}/source",
      tags: ["Posts"],
      summary: "Read the editable source of a post",
      description:
        "Scope posts:write (ck_). Resolved as in PATCH (drafts and scheduled included). blocks_json exactly as stored; absent fields null, absent taxonomy []. 502 when the stored body is in an unrecognized format.",
      ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "read" }),
      request: { params: RefParam, query: LanguageQuery },
      responses: {
        200: json(PostSourceSchema, "The source"),
        ...writeProblems,
        ...problemResponses({ 502: "Stored body in an unrecognized format" }),
      },
    }),
    async (c) => {
      const now = new Date().toISOString();
      const row = await resolveEditablePost(c.env.DB, c.get("auth").siteId, ...postReference(c), now);
      let blocks: unknown = null;
      if (row.blocks_json !== null) {
        // Refuse to hand out something a client would "edit" and send back as an empty document.
        if (!parseBlocksDocument(row.blocks_json).ok) {
          throw new ApiError(502, "STORED_BODY_UNRECOGNIZED", {
            detail: "The stored body of this post is in an unrecognized format.",
            reason: `post ${row.id}: blocks_json is not an Editor.js document`,
          });
        }
        blocks = JSON.parse(row.blocks_json);
      }
      const summary = postSummary(row, now);
      c.header("cache-control", "private, no-store");
      return c.json(
        {
          id: row.id,
          slug: row.slug,
          title: row.title,
          summary: row.summary,
          status: summary.status,
          access: row.access,
          published_at: row.published_at,
          language: row.language,
          post_type: row.post_type,
          author_slug: row.author_slug,
          featured_image_id: row.featured_image_id,
          ...taxonomy(row),
          blocks_json: blocks,
          created_at: row.created_at,
          updated_at: row.updated_at,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/posts/{reference}/seo",
      tags: ["SEO"],
      summary: "Read SEO of a post",
      description:
        "Scope seo:read (ck_ or pk_). Resolved like GET /v1/posts/{reference} (public posts only).",
      ...keyAuth({ kinds: "any", scopes: ["seo:read"], quota: "read" }),
      request: { params: RefParam, query: PublicReadQuery },
      responses: { 200: json(PostSeoSchema, "SEO of the post"), ...writeProblems },
    }),
    async (c) => {
      const site = await keySite(c.env.DB, c.get("auth"));
      const row = await resolvePublicPost(c.env.DB, site, ...postReference(c), new Date().toISOString());
      return c.json(seoView(row), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/posts/{reference}/seo",
      tags: ["SEO"],
      summary: "Update SEO of a post (merged into seo_json)",
      description: `Scope seo:write (ck_). Allowed keys: ${POST_SEO_KEYS.join(", ")}; null removes a key; a body with none of them is 400 NOTHING_EDITABLE. Resolved as in PATCH /v1/posts/{reference}.`,
      ...keyAuth({ kinds: "secret", scopes: ["seo:write"], quota: "write" }),
      request: {
        params: RefParam,
        query: LanguageQuery,
        body: { content: { "application/json": { schema: PostSeoSchema } }, required: true },
      },
      responses: {
        200: json(PostSeoSchema, "SEO after the merge"),
        ...writeProblems,
        ...problemResponses({ 409: "The post kept changing concurrently (EDIT_CONFLICT)" }),
      },
    }),
    async (c) => {
      const patch = c.req.valid("json") as Record<string, unknown>;
      const keys = POST_SEO_KEYS.filter((k) => patch[k] !== undefined);
      if (keys.length === 0) {
        throw new ApiError(400, "NOTHING_EDITABLE", {
          detail: `The body contains no editable SEO key (${POST_SEO_KEYS.join(", ")}).`,
        });
      }
      const now = new Date().toISOString();
      const row = await resolveEditablePost(c.env.DB, c.get("auth").siteId, ...postReference(c), now);
      // Merged into the freshly read seo_json; a concurrent edit makes editPost re-read and merge again.
      const { next } = await editPost(c.env, row.site_id, row, async (existing) => {
        const seo = parseSeo(existing);
        for (const k of keys) {
          if (patch[k] === null) delete seo[k];
          else seo[k] = patch[k];
        }
        return { ...existing, seo_json: JSON.stringify(seo), updated_at: now };
      });
      return c.json(seoView(next), 200);
    },
  );
}
