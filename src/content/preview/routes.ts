/** Preview links: `POST|DELETE /v1/posts/{reference}/preview` (ck_) and `GET /v1/preview/{token}` (no key). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { routeToSite } from "../core/routing";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import { languageParam } from "../posts/resolve";
import { LanguageQuery, RefParam } from "../posts/routes";
import { PostDetailSchema } from "../posts/shapes";
import { createPreview, endPreviews, previewedPost, previewMissing } from "./preview";
import { PREVIEW_DEFAULT_SECONDS, PREVIEW_MAX_SECONDS, parsePreviewToken } from "./token";

export const PreviewRequest = z
  .strictObject({
    expires_in: z
      .number()
      .int()
      .min(60)
      .max(PREVIEW_MAX_SECONDS)
      .optional()
      .openapi({
        description: `Seconds the link lives: 60..${PREVIEW_MAX_SECONDS}, default ${PREVIEW_DEFAULT_SECONDS}`,
      }),
  })
  .openapi("PreviewRequest");

export const PreviewLink = z
  .object({
    url: z.string().openapi({ description: "GET it without a key: the post as it is now" }),
    expires_at: z.string(),
  })
  .openapi("PreviewLink");

const PreviewSchema = PostDetailSchema.extend({
  status: z.enum(["draft", "scheduled", "published", "archived"]),
}).openapi("PostPreview");

const keyProblems = problemResponses({
  400: "Invalid body or parameter, or a slug in several languages without ?language=",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  404: "No such post (or another site's)",
  429: "Quota exceeded",
});

const WRITE: KeyRequirement = { kinds: "secret", scopes: ["posts:write"], quota: "write" };

const createPreviewRoute = createRoute({
  method: "post",
  path: "/v1/posts/{reference}/preview",
  tags: ["Posts"],
  summary: "Make a preview link of a post",
  description: `Scope posts:write (ck_). A link to GET /v1/preview/{token} (no key) that shows the post as it is now, drafts and scheduled posts included, for at most ${PREVIEW_MAX_SECONDS / 3600} h. The link ends with what granted it: the post deleted; the site transferred, deleted, archived or deactivated; this key revoked; or DELETE …/preview, which ends every link of the post.`,
  ...keyAuth(WRITE),
  request: {
    params: RefParam,
    query: LanguageQuery,
    body: { content: { "application/json": { schema: PreviewRequest } }, required: false },
  },
  responses: {
    200: { description: "The link", content: { "application/json": { schema: PreviewLink } } },
    ...keyProblems,
  },
});

const deletePreviewsRoute = createRoute({
  method: "delete",
  path: "/v1/posts/{reference}/preview",
  tags: ["Posts"],
  summary: "End every preview link of a post",
  description:
    "Scope posts:write (ck_). Ends every preview link of the post, whichever key made it: each answers 404 from now on.",
  ...keyAuth(WRITE),
  request: { params: RefParam, query: LanguageQuery },
  responses: { 204: { description: "Every link ended" }, ...keyProblems },
});

const getPreviewRoute = createRoute({
  method: "get",
  path: "/v1/preview/{token}",
  tags: ["Posts"],
  summary: "Read a post by preview link (no key)",
  description:
    "No key. The post's PostDetail as it is now (with its status), never cached (Cache-Control: no-store) nor indexed (X-Robots-Tag: noindex). An invalid, expired or ended link is 404, one body whatever ended it.",
  request: { params: z.object({ token: z.string() }) },
  responses: {
    200: { description: "The post", content: { "application/json": { schema: PreviewSchema } } },
    ...problemResponses({ 404: "Invalid, expired or revoked link" }),
  },
});

/** The preview handlers, shared by the `/v1` key routes and the dashboard routes (src/content/dashboard/). */
export async function createPreviewAnswer(
  c: Context<AppEnv>,
  reference: string,
  language: string | undefined,
  body: z.infer<typeof PreviewRequest> | undefined,
) {
  const target = { reference, language: languageParam(language) };
  const seconds = body?.expires_in ?? PREVIEW_DEFAULT_SECONDS;
  const link = await createPreview(c.env, c.get("auth"), target, seconds, new URL(c.req.url).origin);
  c.header("cache-control", "private, no-store");
  return c.json(link, 200);
}

export async function endPreviewsAnswer(c: Context<AppEnv>, reference: string, language: string | undefined) {
  await endPreviews(c.env, c.get("auth"), { reference, language: languageParam(language) });
  return c.body(null, 204);
}

export function registerPreviewRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(createPreviewRoute, (c) =>
    createPreviewAnswer(
      c,
      c.req.valid("param").reference,
      c.req.valid("query").language,
      c.req.valid("json"),
    ),
  );
  app.openapi(deletePreviewsRoute, (c) =>
    endPreviewsAnswer(c, c.req.valid("param").reference, c.req.valid("query").language),
  );
  app.openapi(getPreviewRoute, async (c) => {
    // The token names its site: the read runs on that site's group (a site content does not know is the
    // same 404 as an unknown token).
    const link = await parsePreviewToken(c.req.valid("param").token);
    if (!link) throw previewMissing();
    const post = await previewedPost(await routeToSite(c, link.siteId, previewMissing), link);
    c.header("cache-control", "no-store");
    c.header("x-robots-tag", "noindex");
    c.header("referrer-policy", "no-referrer");
    return c.json(post, 200);
  });
}
