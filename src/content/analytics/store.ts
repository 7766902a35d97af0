/**
 * The D1 adapter of the analytics store: daily rollups (`analytics_daily`, `analytics_paths_daily`,
 * `analytics_referrers_daily`) and the raw data that makes the daily uniques exact (`analytics_visitors`,
 * `analytics_salts`), purged by the cron once their day is over. A human view is one batch (one round
 * trip, one transaction): the two rollup upserts count the visitor only if the day has not seen the id
 * (for the site, for the path) before the id is recorded, so concurrent views never double-count.
 * Statements go through drizzle's query builder (the counters as `ON CONFLICT … DO UPDATE` upserts); the
 * raw data's purge stays SQL (`DELETE … WHERE rowid IN (SELECT … LIMIT)`, which the builder cannot say).
 */

import { and, asc, countDistinct, desc, eq, gt, gte, lt, lte, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import {
  analyticsDaily,
  analyticsPathsDaily,
  analyticsReferrersDaily,
  analyticsSalts,
  analyticsVisitors,
} from "../../../schema/content";
import type { Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
import { fenceClosesSql } from "../groups/fence-store";
import { base64url } from "../keys/key-hash";
import type { AnalyticsStore, DayTotals, PageView, PathDay, PathTotals, ReferrerTotals } from "./store-port";
import type { AnalyticsWindow } from "./window";

/** Raw rows deleted per statement, and statements per purge (a cron run stays short; the next one goes on). */
const PURGE_CHUNK = 5000;
const PURGE_MAX_CHUNKS = 40;

export function d1AnalyticsStore(db: D1Database): AnalyticsStore {
  const d = drizzle(db);
  return {
    async daySalt(day) {
      const fresh = base64url(crypto.getRandomValues(new Uint8Array(32)));
      const [, read] = await batch(db, [
        // The day's key is the one conflict the row can meet: a salt made first stays.
        d
          .insert(analyticsSalts)
          .values({ day, salt: fresh, created_at: new Date().toISOString() })
          .onConflictDoNothing(),
        query<Row<typeof analyticsSalts, "salt">>(db, "SELECT salt FROM analytics_salts WHERE day = ?", day),
      ]);
      // The insert before it in the same transaction leaves the day's salt in place: the read finds it.
      const salt = read.rows[0]?.salt;
      if (salt === undefined) throw new Error(`analytics salt of ${day} not found after its insert`);
      return salt;
    },

    async recordView(view: PageView) {
      const v = analyticsVisitors;
      const seenToday = and(
        eq(v.site_id, view.siteId),
        eq(v.day, view.day),
        eq(v.visitor_id, view.visitorId),
      );
      // 1 when the day has not seen the visitor (on the site, on the path) before this view records it.
      const newVisitor = sql<number>`NOT EXISTS (SELECT 1 FROM ${v} WHERE ${seenToday})`;
      const newOnPath = sql<number>`NOT EXISTS (SELECT 1 FROM ${v} WHERE ${and(seenToday, eq(v.path, view.path))})`;
      const daily = analyticsDaily;
      const paths = analyticsPathsDaily;
      const referrers = analyticsReferrersDaily;
      await batch(db, [
        d
          .insert(daily)
          .values({ site_id: view.siteId, day: view.day, views: 1, visitors: newVisitor })
          .onConflictDoUpdate({
            target: [daily.site_id, daily.day],
            set: { views: sql`${daily.views} + 1`, visitors: sql`${daily.visitors} + excluded.visitors` },
          }),
        d
          .insert(paths)
          .values({ site_id: view.siteId, day: view.day, path: view.path, views: 1, visitors: newOnPath })
          .onConflictDoUpdate({
            target: [paths.site_id, paths.day, paths.path],
            set: { views: sql`${paths.views} + 1`, visitors: sql`${paths.visitors} + excluded.visitors` },
          }),
        // The view's key (site, day, visitor, path) is the one conflict the row can meet.
        d
          .insert(v)
          .values({ site_id: view.siteId, day: view.day, visitor_id: view.visitorId, path: view.path })
          .onConflictDoNothing(),
        ...(view.referrerHost === null
          ? []
          : [
              d
                .insert(referrers)
                .values({ site_id: view.siteId, day: view.day, referrer_host: view.referrerHost, views: 1 })
                .onConflictDoUpdate({
                  target: [referrers.site_id, referrers.day, referrers.referrer_host],
                  set: { views: sql`${referrers.views} + 1` },
                }),
            ]),
      ]);
    },

    async recordBot(siteId, day) {
      const t = analyticsDaily;
      await d
        .insert(t)
        .values({ site_id: siteId, day, bot_views: 1 })
        .onConflictDoUpdate({ target: [t.site_id, t.day], set: { bot_views: sql`${t.bot_views} + 1` } })
        .run();
    },

    async days(siteId, window: AnalyticsWindow) {
      const t = analyticsDaily;
      const results: DayTotals[] = await d
        .select({ date: t.day, views: t.views, visitors: t.visitors, bot_views: t.bot_views })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .orderBy(asc(t.day))
        .all();
      return results;
    },

    async topPaths(siteId, window, page) {
      // One scan: the window function counts the groups before LIMIT/OFFSET cut the page.
      const t = analyticsPathsDaily;
      const views = sql<number>`SUM(${t.views})`;
      const visitors = sql<number>`SUM(${t.visitors})`;
      const results = await d
        .select({ path: t.path, views, visitors, total: sql<number>`COUNT(*) OVER ()` })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .groupBy(t.path)
        .orderBy(desc(views), desc(visitors), asc(t.path))
        .limit(page.limit)
        .offset(page.offset)
        .all();
      const items: PathTotals[] = results.map(({ path, views, visitors }) => ({ path, views, visitors }));
      if (results.length > 0 || page.offset === 0) return { items, total: results[0]?.total ?? 0 };
      // A page past the end has no row to carry the count.
      const count = await d
        .select({ total: countDistinct(t.path) })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .get();
      return { items, total: count?.total ?? 0 };
    },

    async topReferrers(siteId, window, limit) {
      const t = analyticsReferrersDaily;
      const views = sql<number>`SUM(${t.views})`;
      const results: ReferrerTotals[] = await d
        .select({ host: t.referrer_host, views })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .groupBy(t.referrer_host)
        .orderBy(desc(views), asc(t.referrer_host))
        .limit(limit)
        .all();
      return results;
    },

    async pathDays(siteId, window, after, limit) {
      const t = analyticsPathsDaily;
      const afterDate = after?.date ?? "";
      const results: PathDay[] = await d
        .select({ date: t.day, path: t.path, views: t.views, visitors: t.visitors })
        .from(t)
        .where(
          and(
            eq(t.site_id, siteId),
            gte(t.day, window.from),
            lte(t.day, window.to),
            or(gt(t.day, afterDate), and(eq(t.day, afterDate), gt(t.path, after?.path ?? ""))),
          ),
        )
        .orderBy(asc(t.day), asc(t.path))
        .limit(limit)
        .all();
      return results;
    },

    async purgeRawBefore(day) {
      let visitors = 0;
      for (let i = 0; i < PURGE_MAX_CHUNKS; i++) {
        const result = await db
          .prepare(
            `DELETE FROM analytics_visitors WHERE rowid IN
               (SELECT rowid FROM analytics_visitors WHERE day < ? AND NOT ${fenceClosesSql("analytics_visitors.site_id")} LIMIT ?)`,
          )
          .bind(day, PURGE_CHUNK)
          .run();
        visitors += result.meta.changes;
        if (result.meta.changes < PURGE_CHUNK) break;
      }
      const salts = await d.delete(analyticsSalts).where(lt(analyticsSalts.day, day)).run();
      return { visitors, salts: salts.meta.changes };
    },
  };
}
