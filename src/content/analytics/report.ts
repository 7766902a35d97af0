/**
 * `GET /v1/analytics/summary` and `GET /v1/analytics/posts`: human views and visitors of the key's site
 * over a window of UTC days (rules in `analytics/window.ts`). Visitors over several days are the
 * sum of the daily unique visitors: visitor ids rotate daily by design, so one person seen on two days
 * counts twice. Bot hits are reported apart as `bot_views` and are never in `views` or `visitors`.
 */

import { fail } from "../errors";
import { postKeyOfPath } from "../posts/path";
import { postsBySlugAndLanguage } from "../posts/store";
import type { AnalyticsStore, DayTotals } from "./store-port";
import { type AnalyticsWindow, analyticsWindow, type WindowQuery, windowDays } from "./window";

export const TOP_PATHS = 10;
export const TOP_REFERRERS = 10;
export const POSTS_LIMIT_DEFAULT = 50;
export const POSTS_LIMIT_MAX = 200;
/** Far beyond any site's count of paths in a window; keeps `offset` an exact integer in SQL. */
export const POSTS_OFFSET_MAX = 1_000_000;

/** The full series of the window: one entry per day, zeros where nothing was counted. */
export function dailySeries(window: AnalyticsWindow, rows: DayTotals[]): DayTotals[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return windowDays(window).map((date) => byDate.get(date) ?? { date, views: 0, visitors: 0, bot_views: 0 });
}

export async function analyticsSummary(
  store: AnalyticsStore,
  siteId: string,
  query: WindowQuery,
  today: string,
) {
  const window = analyticsWindow(query, today);
  const [rows, paths, referrers] = await Promise.all([
    store.days(siteId, window),
    store.topPaths(siteId, window, { limit: TOP_PATHS, offset: 0 }),
    store.topReferrers(siteId, window, TOP_REFERRERS),
  ]);
  const series = dailySeries(window, rows);
  const totals = { views: 0, visitors: 0, bot_views: 0 };
  for (const day of series) {
    totals.views += day.views;
    totals.visitors += day.visitors;
    totals.bot_views += day.bot_views;
  }
  return { window, totals, series, top_paths: paths.items, top_referrers: referrers };
}

export interface PostsQuery extends WindowQuery {
  limit?: string | undefined;
  offset?: string | undefined;
}

/** `limit` 1..200 (default 50) and `offset` 0..1,000,000 (default 0): integers, else 400, never clamped. */
export function parsePostsPage(query: PostsQuery): { limit: number; offset: number } {
  const limit =
    query.limit === undefined ? POSTS_LIMIT_DEFAULT : /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : 0;
  if (limit < 1 || limit > POSTS_LIMIT_MAX) {
    fail("INVALID_LIMIT", `limit must be an integer from 1 to ${POSTS_LIMIT_MAX}.`);
  }
  const offset = query.offset === undefined ? 0 : /^\d{1,7}$/.test(query.offset) ? Number(query.offset) : -1;
  if (offset < 0 || offset > POSTS_OFFSET_MAX) {
    fail("INVALID_OFFSET", `offset must be an integer from 0 to ${POSTS_OFFSET_MAX}.`);
  }
  return { limit, offset };
}

/**
 * The ranking of `top_paths` (same order as the summary), one page, each path with the post it is the URL
 * of (`posts/path.ts`), or `post: null` for pages that are no post.
 */
export async function analyticsPosts(
  store: AnalyticsStore,
  db: D1Database,
  site: { id: string; default_language: string },
  query: PostsQuery,
  today: string,
) {
  const page = parsePostsPage(query);
  const window = analyticsWindow(query, today);
  const { items, total } = await store.topPaths(site.id, window, page);
  const keys = items.map((item) => postKeyOfPath(item.path, site.default_language));
  const posts = await postsBySlugAndLanguage(
    db,
    site.id,
    keys.filter((k) => k !== null),
  );
  const byKey = new Map(posts.map((p) => [`${p.language}/${p.slug}`, p]));
  return {
    window,
    items: items.map((item, i) => {
      const key = keys[i];
      return { ...item, post: (key && byKey.get(`${key.language}/${key.slug}`)) ?? null };
    }),
    total,
    limit: page.limit,
    offset: page.offset,
  };
}
