/**
 * Analytics: `POST /v1/analytics/collect` (the public site's page views, pk_ key), `GET
 * /v1/analytics/summary` and `GET /v1/analytics/posts` (scope analytics:read, ck_ keys).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { integerQuery } from "../../lib/query-params";
import type { AppEnv } from "../core/bindings";
import { fail } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { clientIp, keyAuth, requireKey, security } from "../keys/middleware";
import { collectPageView } from "./collect";
import { PAGE_VIEW_MAX_BYTES, PATH_MAX_LENGTH } from "./page-view";
import {
  analyticsPosts,
  analyticsSummary,
  POSTS_LIMIT_DEFAULT,
  POSTS_LIMIT_MAX,
  POSTS_OFFSET_MAX,
  TOP_PATHS,
  TOP_REFERRERS,
} from "./report";
import { DAYS_DEFAULT, DAYS_MAX, RANGE_MAX_DAYS, utcDay } from "./window";

export const COLLECT_PATH = "/v1/analytics/collect";

const COLLECT_KEY: KeyRequirement = { kinds: "public", scopes: [], quota: "collect" };
const READ_KEY: KeyRequirement = { kinds: "secret", scopes: ["analytics:read"], quota: "read" };

export const AnalyticsWindowQuery = z.object({
  from: z
    .string()
    .optional()
    .openapi({ description: "First day, YYYY-MM-DD (UTC). With `to`, takes precedence over `days`." }),
  to: z
    .string()
    .optional()
    .openapi({
      description: `Last day, included, YYYY-MM-DD (UTC). Only \`from\`: up to today; only \`to\`: the ${DAYS_DEFAULT} days ending there; at most ${RANGE_MAX_DAYS} days.`,
    }),
  days: integerQuery({
    minimum: 1,
    maximum: DAYS_MAX,
    default: DAYS_DEFAULT,
    description: "The last days, today (UTC) included. Ignored when `from` or `to` is sent.",
  }),
});

const WindowSchema = z
  .object({ from: z.string(), to: z.string(), days: z.number().int() })
  .openapi("AnalyticsWindow", { description: "The UTC days the numbers cover, both ends included" });

const PathTotalsSchema = z.object({ path: z.string(), views: z.number().int(), visitors: z.number().int() });

const SummarySchema = z
  .object({
    window: WindowSchema,
    totals: z.object({
      views: z.number().int(),
      visitors: z.number().int(),
      bot_views: z.number().int(),
    }),
    series: z.array(
      z.object({
        date: z.string(),
        views: z.number().int(),
        visitors: z.number().int(),
        bot_views: z.number().int(),
      }),
    ),
    top_paths: z.array(PathTotalsSchema),
    top_referrers: z.array(z.object({ host: z.string(), views: z.number().int() })),
  })
  .openapi("AnalyticsSummary");

const PostViewsSchema = PathTotalsSchema.extend({
  post: z
    .object({
      id: z.string(),
      slug: z.string(),
      title: z.string(),
      language: z.string(),
      post_type: z.string(),
    })
    .nullable()
    .openapi({ description: "The post whose URL the path is; null for pages that are no post" }),
});

const PostsPageSchema = z
  .object({
    window: WindowSchema,
    items: z.array(PostViewsSchema),
    total: z.number().int().openapi({ description: "Paths with views in the window" }),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("AnalyticsPostsPage");

const PageViewSchema = z
  .strictObject({
    path: z.string().openapi({
      description: `The page's path (location.pathname), at most ${PATH_MAX_LENGTH} characters; a query or fragment is dropped`,
    }),
    referrer: z
      .string()
      .optional()
      .openapi({ description: "document.referrer; only another site's host is kept" }),
  })
  .openapi("PageView");

const today = () => utcDay(new Date());

async function collectBody(request: Request): Promise<string> {
  if (Number(request.headers.get("content-length") ?? "0") > PAGE_VIEW_MAX_BYTES) {
    fail("INVALID_PAGE_VIEW", `The body is limited to ${PAGE_VIEW_MAX_BYTES} bytes.`);
  }
  return request.text();
}

const getAnalyticsSummaryRoute = createRoute({
  method: "get",
  path: "/v1/analytics/summary",
  tags: ["Analytics"],
  summary: "Analytics summary",
  description: `Scope analytics:read (ck_; a pk_ key is 403). Human views and visitors of the key's site over the window (UTC days): totals, the daily series (every day, zeros included), the top ${TOP_PATHS} paths and top ${TOP_REFERRERS} referring hosts. Visitors over several days are the sum of daily unique visitors. Bot hits are only in bot_views.`,
  ...keyAuth(READ_KEY),
  request: { query: AnalyticsWindowQuery },
  responses: {
    200: { description: "The summary", content: { "application/json": { schema: SummarySchema } } },
    ...problemResponses({ 400: "Bad window", 401: "Key", 403: "Scope, or a pk_ key", 429: "Quota" }),
  },
});

const getPostAnalyticsRoute = createRoute({
  method: "get",
  path: "/v1/analytics/posts",
  tags: ["Analytics"],
  summary: "Analytics views per post or page",
  description: `Scope analytics:read (ck_). The paths of the summary's top_paths ranking (views, then visitors, then path), paged by limit (1..${POSTS_LIMIT_MAX}, default ${POSTS_LIMIT_DEFAULT}) and offset (0..${POSTS_OFFSET_MAX}), each with the post whose URL it is: /{slug} for the site's default language, /{language}/{slug} for others; null for other pages.`,
  ...keyAuth(READ_KEY),
  request: {
    query: AnalyticsWindowQuery.extend({
      limit: integerQuery({ minimum: 1, maximum: POSTS_LIMIT_MAX, default: POSTS_LIMIT_DEFAULT }),
      offset: integerQuery({ minimum: 0, maximum: POSTS_OFFSET_MAX, default: 0 }),
    }),
  },
  responses: {
    200: { description: "A page of paths", content: { "application/json": { schema: PostsPageSchema } } },
    ...problemResponses({
      400: "Bad window, limit or offset",
      401: "Key",
      403: "Scope, or a pk_ key",
      429: "Quota",
    }),
  },
});

export function registerAnalyticsRoutes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: COLLECT_PATH,
    tags: ["Analytics"],
    summary: "Collect a page view (the public site)",
    description: `The site's public key (pk_, any scope) in the \`key\` query or Authorization, from an origin of its allowlist: the site is the key's. Made for \`navigator.sendBeacon(url, JSON.stringify({path, referrer}))\`, a text/plain body, so no preflight. Always 204 for a readable view, counted or not: bots (no user agent, not a browser's, or a crawler, preview, headless, monitoring or HTTP-library user agent) are counted apart as bot_views; speculative loads (Sec-Purpose/Purpose/X-Purpose/X-Moz prefetch, prerender or preview) not at all. The visitor id is the SHA-256 of the day's random salt, the site, the client IP and the user agent; neither is stored, and the day's salt and ids are deleted once the UTC day is over. At most 60 views per minute per (site, client IP): above that 429.`,
    security: security(COLLECT_KEY.kinds, COLLECT_KEY.scopes),
    request: {
      query: z.object({ key: z.string().optional().openapi({ description: "The pk_ key" }) }),
      body: {
        required: true,
        content: { "text/plain": { schema: PageViewSchema }, "application/json": { schema: PageViewSchema } },
      },
    },
    responses: {
      204: { description: "Read (counted, counted as a bot, or not a view)" },
      ...problemResponses({
        400: "Body is not a page view (INVALID_PAGE_VIEW), a member other than path and referrer (BAD_REQUEST naming it), or a ck_ key in the query",
        401: "Key missing or invalid",
        403: "Origin not in the key's allowlist, or a ck_ key",
        429: "Too many views from this client",
      }),
    },
  });
  app.post(COLLECT_PATH, requireKey(COLLECT_KEY), async (c) => {
    const request = {
      siteId: c.get("auth").siteId,
      headers: c.req.raw.headers,
      ip: clientIp(c),
      body: await collectBody(c.req.raw),
    };
    await collectPageView(c.get("services").analytics, request, new Date());
    return c.body(null, 204);
  });

  app.openapi(getAnalyticsSummaryRoute, async (c) => {
    const { analytics } = c.get("services");
    return c.json(
      await analyticsSummary(analytics, c.get("auth").siteId, c.req.valid("query"), today()),
      200,
    );
  });

  app.openapi(getPostAnalyticsRoute, async (c) => {
    const page = await analyticsPosts(
      c.get("services").analytics,
      c.env.DB,
      c.get("auth").site,
      c.req.valid("query"),
      today(),
    );
    return c.json(page, 200);
  });
}
