/** Single-post operations: create, read, update, unpublish, editable source, post SEO. */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { describeIssues } from "../../lib/input-issues";
import { isJson } from "../../lib/media-type";
import { NOT_JSON_DETAIL } from "../../lib/problem";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { clockIso } from "../core/clock";
import type { StoredResponse } from "../core/idempotency-store";
import { fail } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { addResponseHeaders, keyAuth, requireKey, security } from "../keys/middleware";
import { BlocksDocumentSchema } from "./blocks/catalogue";
import { conversionMember } from "./convert/body";
import { createPostOnce } from "./creation";
import { CreatePostSchema, type DashboardUpdatePostSchema, UpdatePostSchema } from "./input";
import { publicPost } from "./public-reads";
import { languageParam, resolveSeoPost } from "./resolve";
import { parseIfMatch, revisionTag } from "./revision-tag";
import { patchPostSeo, seoPatch } from "./seo";
import { deletePost, unpublishPost, updatePost, withFeaturedMedia } from "./service";
import {
  POST_SEO_KEYS,
  PostDetailSchema,
  PostSeoSchema,
  PostSourceSchema,
  PostSummarySchema,
  type PostUrlContext,
  PostWriteAnswerSchema,
  postSummary,
  seoView,
  warningsMember,
} from "./shapes";
import { readPostSource } from "./source";

export const RefParam = z.object({
  reference: z.string().min(1).openapi({ description: "ULID, UUID or slug" }),
});
export const LanguageQuery = z.object({
  language: z.string().optional().openapi({ description: "BCP-47; disambiguates a slug (ignored for ids)" }),
});
export const PublicReadQuery = LanguageQuery.extend({
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

/** The create's header: replays of one Idempotency-Key answer the original 201. */
export const IdempotencyHeaders = z.object({ "idempotency-key": z.string().optional() });

/** The PATCH's precondition on the post's revision. */
export const IfMatchHeaders = z.object({
  "if-match": z.string().optional().openapi({
    description:
      "The ETag of the source (or of a previous PATCH answer): the edit applies only if the post is still at that revision, else 412 PRECONDITION_FAILED and nothing changes. `*` applies to any current post. Without it the edit always applies (only the sent fields change).",
  }),
});

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/**
 * Parses the create's JSON body with its zod schema, as the declarative validator does for the other
 * routes: a body that is not sent as JSON is 415, unreadable JSON 400 with the platform's one detail, a
 * schema failure 400 with the first issue's path, except an unknown field: named first, 422
 * UNKNOWN_FIELD (the spec lists 422 for this operation's unprocessable input), with the same detail and
 * details as every other refusal of an unknown field (src/lib/input-issues.ts).
 */
async function parseCreateBody<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<z.infer<T>> {
  if (!isJson(c.req.header("content-type"))) {
    fail("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    fail("BAD_REQUEST", NOT_JSON_DETAIL);
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const { detail, details, unknownField } = describeIssues(result.error.issues);
    fail(unknownField ? "UNKNOWN_FIELD" : "BAD_REQUEST", { detail, ...(details ? { details } : {}) });
  }
  return result.data;
}

function respond(c: Context<AppEnv>, stored: StoredResponse, replayed: boolean): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=UTF-8" };
  if (stored.location) headers.location = stored.location;
  if (replayed) headers["idempotency-replayed"] = "true";
  return c.body(stored.body, stored.status as 201, headers);
}

interface ReferenceInput {
  out: { param: { reference: string }; query: { language?: string } };
}

/** `{reference}` and `?language=` of a single-post route, as its schemas parsed them, in resolver order. */
function postReference<P extends string, I extends ReferenceInput>(
  c: Context<AppEnv, P, I>,
): [reference: string, language: string | null] {
  return [c.req.valid("param").reference, languageParam(c.req.valid("query").language)];
}

/** What a post answer's URLs are built from. */
export function answerContext(c: Context<AppEnv>, site: PostUrlContext["site"]): PostUrlContext {
  return { site, platformDomain: c.env.PLATFORM_DOMAIN, mediaBase: c.env.MEDIA_PUBLIC_BASE };
}

/** The ETag of a post's revision, for If-Match on PATCH. */
const REVISION_ETAG = {
  etag: {
    description: 'The post\'s revision, e.g. "rev-3"; send it back as If-Match on PATCH',
    schema: { type: "string" as const },
  },
};

/** The write quota is taken by the handler, in one call with the Idempotency-Key's reservation (creation.ts). */
const CREATE_POST_KEY: KeyRequirement = {
  kinds: "secret",
  scopes: ["posts:write"],
  quota: "write",
  quotaInHandler: true,
};

const writeProblems = problemResponses({
  400: "Invalid body or parameter",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  404: "No such post (or another site's)",
  429: "Quota exceeded",
});

const createPostRoute = createRoute({
  method: "post",
  path: "/v1/posts",
  tags: ["Posts"],
  summary: "Create a post",
  description:
    "Scope posts:write (ck_). Idempotency-Key: same key + same body replays the original 201 with Idempotency-Replayed: true; same key + other body is 422 IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_IN_PROGRESS. A taken explicit slug is 409 SLUG_TAKEN; a derived slug gets -2, -3, …. The body is one of blocks_json, html or markdown (more than one is 400 BAD_REQUEST naming them): html and markdown are converted to blocks and the answer's `conversion` lists what could not be kept.",
  security: security(CREATE_POST_KEY.kinds, CREATE_POST_KEY.scopes),
  request: {
    headers: IdempotencyHeaders,
    body: { content: { "application/json": { schema: CreatePostSchema } }, required: true },
  },
  responses: {
    // A $ref rather than the zod schema: the handler also answers replays as a raw Response.
    201: {
      description: "Created (or the original 201 replayed, with Idempotency-Replayed: true)",
      content: { "application/json": { schema: { $ref: "#/components/schemas/PostWriteAnswer" } } },
    },
    ...writeProblems,
    ...problemResponses({
      409: "Slug taken, or the same Idempotency-Key is in progress",
      422: "UNKNOWN_FIELD: a body field CreatePost does not declare (named in details.path; nothing is dropped); key without authorship context; Idempotency-Key reused with another body; unknown post type or media",
    }),
  },
});

const getPostRoute = createRoute({
  method: "get",
  path: "/v1/posts/{reference}",
  tags: ["Posts"],
  summary: "Get a public post (PostDetail)",
  description:
    "Scope posts:read (ck_ or pk_). Draft, scheduled, restricted and other-site posts are 404. A slug public in several languages without ?language= is 400 AMBIGUOUS_SLUG.",
  ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
  request: { params: RefParam, query: PublicReadQuery },
  responses: {
    200: json(PostDetailSchema, "The post"),
    304: { description: "Not modified" },
    ...writeProblems,
  },
});

const updatePostRoute = createRoute({
  method: "patch",
  path: "/v1/posts/{reference}",
  tags: ["Posts"],
  summary: "Update a post (partial)",
  description:
    "Scope posts:write (ck_). Slug references find published, draft and scheduled posts (no window); archived posts by id only; a slug in several languages without ?language= is 400 AMBIGUOUS_SLUG, never a silent pick.",
  ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "write" }),
  request: {
    params: RefParam,
    query: LanguageQuery,
    headers: IfMatchHeaders,
    body: { content: { "application/json": { schema: UpdatePostSchema } }, required: true },
  },
  responses: {
    200: { ...json(PostWriteAnswerSchema, "Updated"), headers: REVISION_ETAG },
    ...writeProblems,
    ...problemResponses({
      409: "Slug taken (SLUG_TAKEN)",
      412: "If-Match names a revision that is no longer current (PRECONDITION_FAILED); nothing changed",
      422: "Unknown post type or media",
    }),
  },
});

const deletePostRoute = createRoute({
  method: "delete",
  path: "/v1/posts/{reference}",
  tags: ["Posts"],
  summary: "Delete a post (soft delete)",
  description:
    "Scope posts:write (ck_). Resolved as PATCH (?language= for a slug in several languages; archived posts by id). The post becomes `deleted`: gone from every read and listing at once (and from exports), its public URL purged, `post.deleted` sent to webhooks. Its slug is free again at once. A second DELETE answers 404 like a missing post.",
  ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "write" }),
  request: { params: RefParam, query: LanguageQuery },
  responses: { 204: { description: "Deleted" }, ...writeProblems },
});

const unpublishPostRoute = createRoute({
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
});

const getPostSourceRoute = createRoute({
  method: "get",
  path: "/v1/posts/{reference}/source",
  tags: ["Posts"],
  summary: "Read the editable source of a post",
  description:
    "Scope posts:write (ck_). Resolved as in PATCH (drafts and scheduled included). blocks_json exactly as stored; absent fields null, absent taxonomy []. 502 when the stored body is in an unrecognized format.",
  ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "read" }),
  request: { params: RefParam, query: LanguageQuery },
  responses: {
    200: { ...json(PostSourceSchema, "The source"), headers: REVISION_ETAG },
    ...writeProblems,
    ...problemResponses({ 502: "Stored body in an unrecognized format" }),
  },
});

const getPostSeoRoute = createRoute({
  method: "get",
  path: "/v1/posts/{reference}/seo",
  tags: ["SEO"],
  summary: "Read SEO of a post",
  description:
    "Scope seo:read (ck_ or pk_: what a public page's <head> needs). Resolved like GET /v1/posts/{reference} (public posts only); a slug in several languages without ?language= is 400 AMBIGUOUS_SLUG: for a ck_ key counting every post PATCH would find (as PATCH), for a pk_ key the public ones.",
  ...keyAuth({ kinds: "any", scopes: ["seo:read"], quota: "read" }),
  request: { params: RefParam, query: PublicReadQuery },
  responses: { 200: json(PostSeoSchema, "SEO of the post"), ...writeProblems },
});

const updatePostSeoRoute = createRoute({
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
  },
});

/**
 * The handlers of the single-post operations, shared by the `/v1` key routes and the dashboard routes
 * (`/api/v1/sites/{site_id}/posts/…`, src/content/dashboard/): the request's KeyContext (`c.get("auth")`)
 * is a key's or a signed-in person's; the rules that differ by who acts read `auth.actor`.
 */
export type PostRef = [reference: string, language: string | null];

/** `POST …/posts`: the write quota and the Idempotency-Key's reservation in one call, then the create. */
export async function createPostAnswer(c: Context<AppEnv>): Promise<Response> {
  const request = {
    idempotencyKey: c.req.header("idempotency-key"),
    addHeaders: (headers: Record<string, string>) => addResponseHeaders(c, headers),
    after: (work: Promise<unknown>) => c.executionCtx.waitUntil(work),
  };
  const { stored, replayed } = await createPostOnce(c.env, c.get("services"), c.get("auth"), request, () =>
    parseCreateBody(c, CreatePostSchema),
  );
  return respond(c, stored, replayed);
}

export async function updatePostAnswer(
  c: Context<AppEnv>,
  ref: PostRef,
  /** UpdatePost (`/v1`), or the dashboard's with `review_requested` (DashboardUpdatePost). */
  changes: z.infer<typeof DashboardUpdatePostSchema>,
) {
  const precondition = parseIfMatch(c.req.header("if-match"));
  const { post, site, warnings, conversion } = await updatePost(
    c.env,
    c.get("services"),
    c.get("auth"),
    ...ref,
    changes,
    precondition,
  );
  const now = clockIso();
  c.header("etag", revisionTag(post, now));
  const shown = await withFeaturedMedia(c.env.DB, post);
  const answer = postSummary(shown, now, answerContext(c, site));
  return c.json({ ...answer, ...warningsMember(warnings), ...conversionMember(conversion) }, 200);
}

export async function deletePostAnswer(c: Context<AppEnv>, ref: PostRef) {
  await deletePost(c.env, c.get("services"), c.get("auth"), ...ref);
  return c.body(null, 204);
}

export async function unpublishPostAnswer(c: Context<AppEnv>, ref: PostRef) {
  const { post, site } = await unpublishPost(c.env, c.get("services"), c.get("auth"), ...ref);
  const shown = await withFeaturedMedia(c.env.DB, post);
  return c.json(postSummary(shown, clockIso(), answerContext(c, site)), 200);
}

export async function postSourceAnswer(c: Context<AppEnv>, ref: PostRef) {
  const now = clockIso();
  const { source, etag } = await readPostSource(c.env.DB, c.get("auth").siteId, ...ref, now);
  c.header("cache-control", "private, no-store");
  c.header("etag", etag);
  return c.json(source, 200);
}

export async function postSeoAnswer(c: Context<AppEnv>, ref: PostRef) {
  const { site, kind } = c.get("auth");
  const row = await resolveSeoPost(c.env.DB, site, kind === "secret", ...ref, clockIso());
  return c.json(seoView(row), 200);
}

export async function updatePostSeoAnswer(
  c: Context<AppEnv>,
  ref: PostRef,
  body: z.infer<typeof PostSeoSchema>,
) {
  const patch = seoPatch(body);
  const seo = await patchPostSeo(c.env, c.get("services"), c.get("auth"), ...ref, patch, clockIso());
  return c.json(seo, 200);
}

export function registerPostRoutes(app: OpenAPIHono<AppEnv>) {
  // blocks_json's schema (CreatePost, UpdatePost) is the block catalogue, referenced by name.
  app.openAPIRegistry.register("BlocksDocument", BlocksDocumentSchema);
  app.openAPIRegistry.register("PostWriteAnswer", PostWriteAnswerSchema);
  // Declared in the registry and served by a plain handler: replays answer with the stored raw body.
  app.openAPIRegistry.registerPath(createPostRoute);
  app.post("/v1/posts", requireKey(CREATE_POST_KEY), createPostAnswer);
  app.openapi(getPostRoute, async (c) => {
    const answer = await publicPost(c.env, c.get("auth"), ...postReference(c), edgePlace(c));
    return sendPublicAnswer(c, answer);
  });
  app.openapi(updatePostRoute, (c) => updatePostAnswer(c, postReference(c), c.req.valid("json")));
  app.openapi(deletePostRoute, (c) => deletePostAnswer(c, postReference(c)));
  app.openapi(unpublishPostRoute, (c) => unpublishPostAnswer(c, postReference(c)));
  app.openapi(getPostSourceRoute, (c) => postSourceAnswer(c, postReference(c)));
  app.openapi(getPostSeoRoute, (c) => postSeoAnswer(c, postReference(c)));
  app.openapi(updatePostSeoRoute, (c) => updatePostSeoAnswer(c, postReference(c), c.req.valid("json")));
}
