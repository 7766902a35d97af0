/** `GET /v1/search` (issue 22). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { keyAuth } from "../keys/middleware";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../posts/listing";
import { PostListItemSchema, PostSummarySchema } from "../posts/shapes";
import { search } from "./search";

export const SearchQuery = z.object({
  q: z
    .string()
    .optional()
    .openapi({ description: "Words to find (prefix match), up to 200 characters; required" }),
  language: z.string().optional().openapi({ description: "BCP-47; default the site's default language" }),
  limit: integerQuery({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

const SearchPage = z
  .object({
    items: z.array(z.union([PostListItemSchema, PostSummarySchema])),
    next_cursor: z.string().nullable(),
  })
  .openapi("SearchPage", { description: "Best match first; next_cursor is null on the last page" });

const searchPostsRoute = createRoute({
  method: "get",
  path: "/v1/search",
  tags: ["Posts"],
  summary: "Search posts (title, summary and body)",
  description:
    "Scope posts:read (ck_ or pk_). Full-text search in one language, ranked (title weighs most), keyset paged. pk_ keys and ck_ keys without posts:write find public posts only (PostListItem items, cached like the listing); a ck_ key with posts:write finds every post but deleted ones (PostSummary items, private, no-store).",
  ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
  request: { query: SearchQuery },
  responses: {
    200: { description: "A page of matches", content: { "application/json": { schema: SearchPage } } },
    304: { description: "Not modified (public results)" },
    ...problemResponses({
      400: "q without a word, invalid limit, cursor or language",
      401: "Key missing or invalid",
      403: "Scope or origin",
      429: "Quota exceeded",
    }),
  },
});

export function registerSearchRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(searchPostsRoute, async (c) => {
    const { answer, cacheable } = await search(c.env, c.get("auth"), c.req.valid("query"), edgePlace(c));
    if (cacheable) return sendPublicAnswer(c, answer);
    c.header("cache-control", "private, no-store");
    return c.body(answer.body, 200, { "content-type": "application/json; charset=UTF-8" });
  });
}
