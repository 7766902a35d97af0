/** `GET /v1/posts`: the public keyset listing, and with `status` the authenticated PostSummary listing. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { clockIso } from "../core/clock";
import { includeQuery } from "../core/list-include";
import type { KeyRequirement } from "../keys/api-key";
import { requireKey, security } from "../keys/middleware";
import { DEFAULT_LIMIT, listPosts, MAX_LIMIT, type PostListRequest, postListRequest } from "./listing";
import { publicPostList } from "./public-reads";
import { PostListItemSchema, PostSummarySchema, totalPageSchema } from "./shapes";
import { LISTABLE_STATUSES } from "./store";

const STATUS_CHOICE = LISTABLE_STATUSES.join("|");

export const ListQuery = z.object({
  limit: integerQuery({
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: "Never clamped: out of range is 400 INVALID_LIMIT",
  }),
  cursor: z.string().optional().openapi({ description: "Opaque; the previous page's next_cursor" }),
  category: z.string().optional().openapi({ description: "Category slug(s), comma-separated = ANY" }),
  tag: z.string().optional().openapi({ description: "Tag slug(s), comma-separated = ANY" }),
  q: z.string().optional().openapi({ description: "Full-text search in title and summary" }),
  since: z.string().optional().openapi({ description: "RFC 3339; only posts with updated_at >= since" }),
  language: z.string().optional().openapi({ description: "BCP-47 tag" }),
  status: z
    .string()
    .optional()
    .openapi({
      pattern: `^ *(${STATUS_CHOICE}) *(, *(${STATUS_CHOICE}) *)*$`,
      description:
        "Comma-separated of draft, scheduled, published, archived. Switches to the authenticated PostSummary listing (ck_ key with posts:write; private, no-store).",
    }),
  post_type: z.string().optional().openapi({ description: "Post type slug" }),
  author: z.string().optional().openapi({ description: "Author slug (public listing only)" }),
  include: includeQuery(),
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

/** A page of the authenticated listing (also the dashboard's `GET /api/v1/sites/{site_id}/posts`). */
export const PostSummaryPageSchema = totalPageSchema(PostSummarySchema, "PostSummaryPage");

function listRequirement(c: Context<AppEnv>): KeyRequirement {
  return c.req.query("status") !== undefined
    ? { kinds: "secret", scopes: ["posts:write"], quota: "read" }
    : { kinds: "any", scopes: ["posts:read"], quota: "read" };
}

const listPostsRoute = createRoute({
  method: "get",
  path: "/v1/posts",
  tags: ["Posts"],
  summary: "List posts (public keyset listing; with status the authenticated listing)",
  description:
    "Scopes: posts:read (public listing, ck_ or pk_); posts:write with a ck_ key when `status` is sent.",
  security: [...security("any", ["posts:read"]), ...security("secret", ["posts:write"])],
  middleware: [requireKey(listRequirement)],
  request: { query: ListQuery },
  responses: {
    200: {
      description: "A page (PostListItem items; PostSummary items with status)",
      content: {
        "application/json": {
          schema: z.union([totalPageSchema(PostListItemSchema, "PostPage"), PostSummaryPageSchema]),
        },
      },
    },
    304: { description: "Not modified (public listing only)" },
    ...problemResponses({
      400: "Invalid parameter",
      401: "Key missing or invalid",
      403: "Scope or origin",
      429: "Quota",
    }),
  },
});

/**
 * The authenticated PostSummary listing (drafts included), shared by `GET /v1/posts?status=…` and the
 * dashboard's `GET /api/v1/sites/{site_id}/posts` (every status unless `status` narrows it).
 */
export async function listPostSummaries(c: Context<AppEnv>, request: PostListRequest) {
  const page = await listPosts(c.env, c.get("auth").site, request, clockIso());
  c.header("cache-control", "private, no-store");
  return c.json(page.body, 200);
}

export function registerPostListRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(listPostsRoute, async (c) => {
    const request = postListRequest(c.req.valid("query"));
    // Every item's url is built from the key's site (read with the key: no extra hop).
    if (!request.statuses)
      return sendPublicAnswer(c, await publicPostList(c.env, c.get("auth"), request, edgePlace(c)));
    return listPostSummaries(c, request);
  });
}
