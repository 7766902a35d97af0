/** `GET /v1/posts/{reference}/revisions`, `POST /v1/posts/{reference}/revisions/{id}/restore` (issue 22). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { keyAuth } from "../keys/middleware";
import { languageParam } from "../posts/resolve";
import { parseIfMatch, revisionTag } from "../posts/revision-tag";
import { IfMatchHeaders, LanguageQuery, RefParam } from "../posts/routes";
import { ActorSchema, PostSeoSchema, PostSummarySchema, postSummary } from "../posts/shapes";
import {
  postRevisions,
  REVISIONS_DEFAULT_LIMIT,
  REVISIONS_MAX_LIMIT,
  restoreRevision,
  revisionNumber,
} from "./revisions";
import { KEPT_REVISIONS } from "./store";

const RevisionSchema = z
  .object({
    id: z
      .number()
      .int()
      .openapi({ description: 'The revision number: the N of the post\'s ETag "rev-N" then' }),
    created_at: z.string(),
    current: z.boolean().openapi({ description: "This revision is the post's content as it is now" }),
    made_by: ActorSchema.openapi({
      description:
        "Who made this revision: the API key (by its name then) or the signed-in person (by display name); null for revisions made before this was recorded",
    }),
    title: z.string(),
    summary: z.string().nullable(),
    blocks_json: z
      .unknown()
      .openapi({ description: "The body as stored at this revision; null when absent" }),
    seo: PostSeoSchema,
    category_slugs: z.array(z.string()),
    tag_slugs: z.array(z.string()),
  })
  .openapi("PostRevision");

export const RevisionPage = z
  .object({ items: z.array(RevisionSchema), next_cursor: z.string().nullable() })
  .openapi("PostRevisionPage");

export const RevisionsQuery = LanguageQuery.extend({
  limit: integerQuery({ minimum: 1, maximum: REVISIONS_MAX_LIMIT, default: REVISIONS_DEFAULT_LIMIT }),
  cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
});

export const RevisionParam = RefParam.extend({
  id: z.string().openapi({ description: "The revision number" }),
});

const problems = problemResponses({
  400: "Invalid parameter (limit, cursor, language) or a slug in several languages without ?language=",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  404: "No such post or revision (or another site's)",
  429: "Quota exceeded",
});

const listRevisionsRoute = createRoute({
  method: "get",
  path: "/v1/posts/{reference}/revisions",
  tags: ["Posts"],
  summary: "List the revisions of a post",
  description: `Scope posts:write (ck_). Every change of a post's title, summary, body or SEO keeps a revision (its content as the change left it); the newest ${KEPT_REVISIONS} are kept. Newest first; resolved as in PATCH.`,
  ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "read" }),
  request: {
    params: RefParam,
    query: RevisionsQuery,
  },
  responses: {
    200: {
      description: "A page of revisions",
      content: { "application/json": { schema: RevisionPage } },
    },
    ...problems,
  },
});

const restoreRevisionRoute = createRoute({
  method: "post",
  path: "/v1/posts/{reference}/revisions/{id}/restore",
  tags: ["Posts"],
  summary: "Restore a revision of a post",
  description:
    "Scope posts:write (ck_). Writes the revision's title, summary, body and SEO back onto the post (a new revision); other fields stay. If-Match as on PATCH (412 PRECONDITION_FAILED when stale; nothing changes).",
  ...keyAuth({ kinds: "secret", scopes: ["posts:write"], quota: "write" }),
  request: {
    params: RevisionParam,
    query: LanguageQuery,
    headers: IfMatchHeaders,
  },
  responses: {
    200: {
      description: "The post after the restore",
      content: { "application/json": { schema: PostSummarySchema } },
      headers: { etag: { description: "The post's new revision", schema: { type: "string" as const } } },
    },
    ...problems,
    ...problemResponses({
      409: "The post kept changing concurrently (EDIT_CONFLICT)",
      412: "If-Match names a revision that is no longer current (PRECONDITION_FAILED); nothing changed",
    }),
  },
});

/** The revision handlers, shared by the `/v1` key routes and the dashboard routes (src/content/dashboard/). */
export async function revisionsAnswer(
  c: Context<AppEnv>,
  reference: string,
  query: z.infer<typeof RevisionsQuery>,
) {
  const page = await postRevisions(c.env, c.get("auth"), reference, languageParam(query.language), query);
  c.header("cache-control", "private, no-store");
  return c.json(page, 200);
}

export async function restoreRevisionAnswer(
  c: Context<AppEnv>,
  param: { reference: string; id: string },
  language: string | undefined,
) {
  const target = {
    reference: param.reference,
    language: languageParam(language),
    revision: revisionNumber(param.id),
  };
  const precondition = parseIfMatch(c.req.header("if-match"));
  const auth = c.get("auth");
  const { post, site } = await restoreRevision(c.env, c.get("services"), auth, target, precondition);
  const now = new Date().toISOString();
  c.header("etag", revisionTag(post, now));
  const urls = { site, platformDomain: c.env.PLATFORM_DOMAIN, mediaBase: c.env.MEDIA_PUBLIC_BASE };
  return c.json(postSummary(post, now, urls), 200);
}

export function registerRevisionRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRevisionsRoute, (c) =>
    revisionsAnswer(c, c.req.valid("param").reference, c.req.valid("query")),
  );
  app.openapi(restoreRevisionRoute, (c) =>
    restoreRevisionAnswer(c, c.req.valid("param"), c.req.valid("query").language),
  );
}
