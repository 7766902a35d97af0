/** `GET /v1/sites/{site}/sitemap.xml` and `…/feed.xml` (issue 22): no key, for the site's renderer and crawlers. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import { parseId } from "../../lib/ids";
import type { AppEnv, Env } from "../core/bindings";
import { edgePlace } from "../core/cacheable";
import { PUBLIC_ANSWER_TTL_MS, type PublicAnswer } from "../core/edge-cache";
import { matchesIfNoneMatch } from "../core/etag";
import { siteIdBySlug } from "../core/groups";
import { enterSite } from "../core/routing";
import { problem } from "../errors";
import { FEED_ITEMS, SITEMAP_MAX_URLS, siteFeed } from "./feeds";

const SiteParam = z.object({ site: z.string().min(1).openapi({ description: "The site's slug or id" }) });

function sendXml(c: Context<AppEnv>, answer: PublicAnswer, contentType: string): Response {
  c.header("etag", answer.etag);
  c.header("cache-control", `public, max-age=${PUBLIC_ANSWER_TTL_MS / 1000}`);
  if (matchesIfNoneMatch(c.req.header("if-none-match"), answer.etag)) return c.body(null, 304);
  return c.body(JSON.parse(answer.body) as string, 200, { "content-type": contentType });
}

const xmlResponse = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: { type: "string" as const } } },
});

const problems = problemResponses({
  400: "Invalid language",
  404: "No such site, or the site is not live",
});

const getSitemapRoute = createRoute({
  method: "get",
  path: "/v1/sites/{site}/sitemap.xml",
  tags: ["Feeds"],
  summary: "The site's sitemap (no key)",
  description: `No key, no Origin needed. Every public post of the site (all languages, newest first, at most ${SITEMAP_MAX_URLS}) with absolute URLs on the canonical host; for the site's renderer to serve at /sitemap.xml. Cached like the public listing and purged with it. A site that is not live is 404.`,
  request: { params: SiteParam },
  responses: {
    200: xmlResponse("application/xml", "sitemaps.org urlset"),
    304: { description: "Not modified" },
    ...problems,
  },
});

const getFeedRoute = createRoute({
  method: "get",
  path: "/v1/sites/{site}/feed.xml",
  tags: ["Feeds"],
  summary: "The site's RSS 2.0 feed (no key)",
  description: `No key, no Origin needed. The ${FEED_ITEMS} newest public posts in one language (?language=, default the site's), absolute URLs on the canonical host; for the site's renderer to serve at /feed.xml. Cached like the public listing and purged with it. A site that is not live is 404.`,
  request: {
    params: SiteParam,
    query: z.object({ language: z.string().optional().openapi({ description: "BCP-47" }) }),
  },
  responses: {
    200: xmlResponse("application/rss+xml", "RSS 2.0"),
    304: { description: "Not modified" },
    ...problems,
  },
});

/**
 * The site a feed's path names (its id, else its slug through the directory), the request routed to its
 * group; a slug or id content does not know is the same 404 as a site that is not live.
 */
async function feedSite(c: Context<AppEnv>, reference: string): Promise<{ env: Env; siteId: string }> {
  const siteId = parseId(reference) ?? (await siteIdBySlug(c.env, reference));
  const routed = siteId ? await enterSite(c, siteId) : null;
  if (!siteId || !routed) throw problem("NOT_FOUND", "No such site.");
  return { env: routed.env, siteId };
}

export function registerFeedRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getSitemapRoute, async (c) => {
    const { env, siteId } = await feedSite(c, c.req.valid("param").site);
    const answer = await siteFeed(env, "sitemap", siteId, undefined, edgePlace(c));
    return sendXml(c, answer, "application/xml; charset=UTF-8");
  });

  app.openapi(getFeedRoute, async (c) => {
    const { env, siteId } = await feedSite(c, c.req.valid("param").site);
    const answer = await siteFeed(env, "feed", siteId, c.req.valid("query").language, edgePlace(c));
    return sendXml(c, answer, "application/rss+xml; charset=UTF-8");
  });
}
