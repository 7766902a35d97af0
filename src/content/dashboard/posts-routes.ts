/**
 * The dashboard's post routes (issue 34): `/api/v1/sites/{site_id}/posts[/{reference}[/unpublish,/seo,
 * /revisions[/{id}/restore],/preview]]`, for a signed-in person, each calling its `/v1` twin's handler.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { personAuth, requirePerson } from "../keys/middleware";
import { CreatePostSchema, DashboardUpdatePostSchema } from "../posts/input";
import { ListQuery, listPostSummaries, PostSummaryPageSchema } from "../posts/list-routes";
import { postListRequest } from "../posts/listing";
import { languageParam } from "../posts/resolve";
import {
  createPostAnswer,
  deletePostAnswer,
  IdempotencyHeaders,
  IfMatchHeaders,
  LanguageQuery,
  type PostRef,
  postSeoAnswer,
  postSourceAnswer,
  unpublishPostAnswer,
  updatePostAnswer,
  updatePostSeoAnswer,
} from "../posts/routes";
import { PostSeoSchema, PostSourceSchema, PostSummarySchema, PostWriteAnswerSchema } from "../posts/shapes";
import { LISTABLE_STATUSES } from "../posts/store";
import { createPreviewAnswer, endPreviewsAnswer, PreviewLink, PreviewRequest } from "../preview/routes";
import { RevisionPage, RevisionsQuery, restoreRevisionAnswer, revisionsAnswer } from "../revisions/routes";
import {
  DASHBOARD_TAG,
  dashboardProblems,
  json,
  NEEDS,
  needsText,
  SiteParam,
  SitePostParam,
  SiteRevisionParam,
} from "./dashboard";

const POSTS = "/api/v1/sites/{site_id}/posts";
const POST = `${POSTS}/{reference}`;

const DashboardListQuery = ListQuery.omit({ key: true, author: true }).extend({
  review_requested: z.enum(["true", "false"]).optional().openapi({
    description:
      "true: only drafts their creator marked ready for review (what an editor reviews); false: only the others",
  }),
});

const listRoute = createRoute({
  method: "get",
  path: POSTS,
  tags: [DASHBOARD_TAG],
  summary: "List the site's posts, drafts included",
  description: `${needsText(NEEDS.readPosts)} Every status unless \`status\` narrows it (GET /v1/posts?status=…).`,
  ...personAuth(NEEDS.readPosts),
  request: { params: SiteParam, query: DashboardListQuery },
  responses: { 200: json(PostSummaryPageSchema, "A page of PostSummary items"), ...dashboardProblems },
});

const createRoutePath = createRoute({
  method: "post",
  path: POSTS,
  tags: [DASHBOARD_TAG],
  summary: "Create a post as the signed-in person",
  description: `${needsText(NEEDS.createPost)} As POST /v1/posts; the Idempotency-Key is the person's on this site.`,
  security: personAuth(NEEDS.createPost).security,
  request: {
    params: SiteParam,
    headers: IdempotencyHeaders,
    body: {
      content: {
        "application/json": {
          schema: CreatePostSchema,
          example: {
            title: "Spring opening hours",
            markdown: "## From March 20\n\nWe open at **8 am**. See the [map](https://example.com/map).",
            category_slugs: ["news"],
          },
        },
      },
      required: true,
    },
  },
  responses: {
    201: {
      description: "Created (or the original 201 replayed, with Idempotency-Replayed: true)",
      content: { "application/json": { schema: { $ref: "#/components/schemas/PostWriteAnswer" } } },
    },
    ...dashboardProblems,
    ...problemResponses({
      409: "Slug taken, or the same Idempotency-Key in progress",
      422: "As POST /v1/posts",
    }),
  },
});

const sourceRoute = createRoute({
  method: "get",
  path: POST,
  tags: [DASHBOARD_TAG],
  summary: "Read a post's editable source",
  description: `${needsText(NEEDS.readPosts)} As GET /v1/posts/{reference}/source (drafts and scheduled included).`,
  ...personAuth(NEEDS.readPosts),
  request: { params: SitePostParam, query: LanguageQuery },
  responses: { 200: json(PostSourceSchema, "The source (ETag: its revision)"), ...dashboardProblems },
});

const updateRoute = createRoute({
  method: "patch",
  path: POST,
  tags: [DASHBOARD_TAG],
  summary: "Update a post (partial)",
  description: `${needsText(NEEDS.editPost)} As PATCH /v1/posts/{reference}, If-Match included.`,
  ...personAuth(NEEDS.editPost),
  request: {
    params: SitePostParam,
    query: LanguageQuery,
    headers: IfMatchHeaders,
    body: {
      content: {
        "application/json": {
          schema: DashboardUpdatePostSchema,
          example: { review_requested: true },
        },
      },
      required: true,
    },
  },
  responses: {
    200: json(PostWriteAnswerSchema, "Updated"),
    ...dashboardProblems,
    ...problemResponses({ 409: "Slug taken", 412: "If-Match is stale (PRECONDITION_FAILED)" }),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: POST,
  tags: [DASHBOARD_TAG],
  summary: "Delete a post (soft delete)",
  description: `${needsText(NEEDS.editPost)} As DELETE /v1/posts/{reference}.`,
  ...personAuth(NEEDS.editPost),
  request: { params: SitePostParam, query: LanguageQuery },
  responses: { 204: { description: "Deleted" }, ...dashboardProblems },
});

const unpublishRoute = createRoute({
  method: "post",
  path: `${POST}/unpublish`,
  tags: [DASHBOARD_TAG],
  summary: "Unpublish a post (published -> archived)",
  description: `${needsText(NEEDS.publish)} As POST /v1/posts/{reference}/unpublish.`,
  ...personAuth(NEEDS.publish),
  request: { params: SitePostParam, query: LanguageQuery },
  responses: {
    200: json(PostSummarySchema, "Archived"),
    ...dashboardProblems,
    ...problemResponses({ 409: "The post is not published" }),
  },
});

const seoRoute = createRoute({
  method: "get",
  path: `${POST}/seo`,
  tags: [DASHBOARD_TAG],
  summary: "Read a post's SEO",
  description: `${needsText(NEEDS.readPosts)} As GET /v1/posts/{reference}/seo with a ck_ key (drafts included).`,
  ...personAuth(NEEDS.readPosts),
  request: { params: SitePostParam, query: LanguageQuery },
  responses: { 200: json(PostSeoSchema, "SEO of the post"), ...dashboardProblems },
});

const updateSeoRoute = createRoute({
  method: "patch",
  path: `${POST}/seo`,
  tags: [DASHBOARD_TAG],
  summary: "Update a post's SEO (merged)",
  description: `${needsText(NEEDS.editPost)} As PATCH /v1/posts/{reference}/seo.`,
  ...personAuth(NEEDS.editPost),
  request: {
    params: SitePostParam,
    query: LanguageQuery,
    body: { content: { "application/json": { schema: PostSeoSchema } }, required: true },
  },
  responses: { 200: json(PostSeoSchema, "SEO after the merge"), ...dashboardProblems },
});

const revisionsRoute = createRoute({
  method: "get",
  path: `${POST}/revisions`,
  tags: [DASHBOARD_TAG],
  summary: "List a post's revisions",
  description: `${needsText(NEEDS.readPosts)} As GET /v1/posts/{reference}/revisions.`,
  ...personAuth(NEEDS.readPosts),
  request: { params: SitePostParam, query: RevisionsQuery },
  responses: { 200: json(RevisionPage, "A page of revisions"), ...dashboardProblems },
});

const restoreRoute = createRoute({
  method: "post",
  path: `${POST}/revisions/{id}/restore`,
  tags: [DASHBOARD_TAG],
  summary: "Restore a revision of a post",
  description: `${needsText(NEEDS.editPost)} As POST /v1/posts/{reference}/revisions/{id}/restore, If-Match included.`,
  ...personAuth(NEEDS.editPost),
  request: { params: SiteRevisionParam, query: LanguageQuery, headers: IfMatchHeaders },
  responses: {
    200: json(PostSummarySchema, "The post after the restore"),
    ...dashboardProblems,
    ...problemResponses({ 409: "EDIT_CONFLICT", 412: "If-Match is stale (PRECONDITION_FAILED)" }),
  },
});

const previewRoute = createRoute({
  method: "post",
  path: `${POST}/preview`,
  tags: [DASHBOARD_TAG],
  summary: "Make a preview link of a post",
  description: `${needsText(NEEDS.editPost)} As POST /v1/posts/{reference}/preview.`,
  ...personAuth(NEEDS.editPost),
  request: {
    params: SitePostParam,
    query: LanguageQuery,
    body: { content: { "application/json": { schema: PreviewRequest } }, required: false },
  },
  responses: { 200: json(PreviewLink, "The link"), ...dashboardProblems },
});

const endPreviewsRoute = createRoute({
  method: "delete",
  path: `${POST}/preview`,
  tags: [DASHBOARD_TAG],
  summary: "End every preview link of a post",
  description: `${needsText(NEEDS.editPost)} As DELETE /v1/posts/{reference}/preview.`,
  ...personAuth(NEEDS.editPost),
  request: { params: SitePostParam, query: LanguageQuery },
  responses: { 204: { description: "Every link ended" }, ...dashboardProblems },
});

/** `{reference}` and `?language=` as the route's schemas parsed them, in resolver order. */
function ref(param: { reference: string }, query: { language?: string | undefined }): PostRef {
  return [param.reference, languageParam(query.language)];
}

export function registerDashboardPostRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, (c) => {
    const query = c.req.valid("query");
    const status = query.status ?? LISTABLE_STATUSES.join(",");
    const { review_requested, ...rest } = query;
    const request = postListRequest({ ...rest, status });
    if (review_requested !== undefined) request.filters.reviewRequested = review_requested === "true";
    return listPostSummaries(c, request);
  });
  app.openAPIRegistry.registerPath(createRoutePath);
  app.post(POSTS.replace("{site_id}", ":site_id"), requirePerson(NEEDS.createPost), createPostAnswer);
  app.openapi(sourceRoute, (c) => postSourceAnswer(c, ref(c.req.valid("param"), c.req.valid("query"))));
  app.openapi(updateRoute, (c) =>
    updatePostAnswer(c, ref(c.req.valid("param"), c.req.valid("query")), c.req.valid("json")),
  );
  app.openapi(deleteRoute, (c) => deletePostAnswer(c, ref(c.req.valid("param"), c.req.valid("query"))));
  app.openapi(unpublishRoute, (c) => unpublishPostAnswer(c, ref(c.req.valid("param"), c.req.valid("query"))));
  app.openapi(seoRoute, (c) => postSeoAnswer(c, ref(c.req.valid("param"), c.req.valid("query"))));
  app.openapi(updateSeoRoute, (c) =>
    updatePostSeoAnswer(c, ref(c.req.valid("param"), c.req.valid("query")), c.req.valid("json")),
  );
  app.openapi(revisionsRoute, (c) =>
    revisionsAnswer(c, c.req.valid("param").reference, c.req.valid("query")),
  );
  app.openapi(restoreRoute, (c) =>
    restoreRevisionAnswer(c, c.req.valid("param"), c.req.valid("query").language),
  );
  app.openapi(previewRoute, (c) =>
    createPreviewAnswer(
      c,
      c.req.valid("param").reference,
      c.req.valid("query").language,
      c.req.valid("json"),
    ),
  );
  app.openapi(endPreviewsRoute, (c) =>
    endPreviewsAnswer(c, c.req.valid("param").reference, c.req.valid("query").language),
  );
}
