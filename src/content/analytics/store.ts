/**
 * The D1 adapter of the analytics store: daily rollups (`analytics_daily`, `analytics_paths_daily`,
 * `analytics_referrers_daily`) and the raw data that makes the daily uniques exact (`analytics_visitors`,
 * `analytics_salts`), purged by the cron once their day is over. A human view is one batch (one round
 * trip, one transaction): the two rollup upserts count the visitor only if the day has not seen the id
 * (for the site, for the path) before the id is recorded, so concurrent views never double-count.
 */

import { and, asc, countDistinct, eq, gt, gte, lt, lte, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { analyticsDaily, analyticsPathsDaily, analyticsSalts } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
import { base64url } from "../keys/key-hash";
import type { AnalyticsStore, DayTotals, PageView, PathDay, PathTotals, ReferrerTotals } from "./store-port";
import type { AnalyticsWindow } from "./window";

/** Raw rows deleted per statement, and statements per purge (a cron run stays short; the next one goes on). */
const PURGE_CHUNK = 5000;
const PURGE_MAX_CHUNKS = 40;

export function d1AnalyticsStore(db: D1Database): AnalyticsStore {
  return {
    async daySalt(day) {
      const fresh = base64url(crypto.getRandomValues(new Uint8Array(32)));
      const [, read] = await batch(db, [
        db
          .prepare("INSERT OR IGNORE INTO analytics_salts (day, salt, created_at) VALUES (?, ?, ?)")
          .bind(day, fresh, new Date().toISOString()),
        query<Row<typeof analyticsSalts, "salt">>(db, "SELECT salt FROM analytics_salts WHERE day = ?", day),
      ]);
      // The insert before it in the same transaction leaves the day's salt in place: the read finds it.
      const salt = read.rows[0]?.salt;
      if (salt === undefined) throw new Error(`analytics salt of ${day} not found after its insert`);
      return salt;
    },

    async recordView(view: PageView) {
      const statements = [
        db
          .prepare(
            `INSERT INTO analytics_daily (site_id, day, views, visitors)
             VALUES (?1, ?2, 1, NOT EXISTS (SELECT 1 FROM analytics_visitors WHERE site_id = ?1 AND day = ?2 AND visitor_id = ?3))
             ON CONFLICT (site_id, day) DO UPDATE SET views = views + 1, visitors = visitors + excluded.visitors`,
          )
          .bind(view.siteId, view.day, view.visitorId),
        db
          .prepare(
            `INSERT INTO analytics_paths_daily (site_id, day, path, views, visitors)
             VALUES (?1, ?2, ?3, 1, NOT EXISTS (SELECT 1 FROM analytics_visitors
               WHERE site_id = ?1 AND day = ?2 AND visitor_id = ?4 AND path = ?3))
             ON CONFLICT (site_id, day, path) DO UPDATE SET views = views + 1, visitors = visitors + excluded.visitors`,
          )
          .bind(view.siteId, view.day, view.path, view.visitorId),
        db
          .prepare(
            "INSERT OR IGNORE INTO analytics_visitors (site_id, day, visitor_id, path) VALUES (?, ?, ?, ?)",
          )
          .bind(view.siteId, view.day, view.visitorId, view.path),
      ];
      if (view.referrerHost !== null) {
        statements.push(
          db
            .prepare(
              `INSERT INTO analytics_referrers_daily (site_id, day, referrer_host, views) VALUES (?, ?, ?, 1)
               ON CONFLICT (site_id, day, referrer_host) DO UPDATE SET views = views + 1`,
            )
            .bind(view.siteId, view.day, view.referrerHost),
        );
      }
      await batch(db, statements);
    },

    async recordBot(siteId, day) {
      await db
        .prepare(
          `INSERT INTO analytics_daily (site_id, day, bot_views) VALUES (?, ?, 1)
           ON CONFLICT (site_id, day) DO UPDATE SET bot_views = bot_views + 1`,
        )
        .bind(siteId, day)
        .run();
    },

    async days(siteId, window: AnalyticsWindow) {
      const t = analyticsDaily;
      const results: DayTotals[] = await drizzle(db)
        .select({ date: t.day, views: t.views, visitors: t.visitors, bot_views: t.bot_views })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .orderBy(asc(t.day))
        .all();
      return results;
    },

    async topPaths(siteId, window, page) {
      // One scan: the window function counts the groups before LIMIT/OFFSET cut the page.
      const { results } = await db
        .prepare(
          `SELECT path, SUM(views) AS views, SUM(visitors) AS visitors, COUNT(*) OVER () AS total
           FROM analytics_paths_daily WHERE site_id = ? AND day >= ? AND day <= ?
           GROUP BY path ORDER BY views DESC, visitors DESC, path ASC LIMIT ? OFFSET ?`,
        )
        .bind(siteId, window.from, window.to, page.limit, page.offset)
        .all<PathTotals & Computed<{ total: number }>>();
      const items = results.map(({ path, views, visitors }) => ({ path, views, visitors }));
      if (results.length > 0 || page.offset === 0) return { items, total: results[0]?.total ?? 0 };
      // A page past the end has no row to carry the count.
      const t = analyticsPathsDaily;
      const count = await drizzle(db)
        .select({ total: countDistinct(t.path) })
        .from(t)
        .where(and(eq(t.site_id, siteId), gte(t.day, window.from), lte(t.day, window.to)))
        .get();
      return { items, total: count?.total ?? 0 };
    },

    async topReferrers(siteId, window, limit) {
      const { results } = await db
        .prepare(
          `SELECT referrer_host AS host, SUM(views) AS views FROM analytics_referrers_daily
           WHERE site_id = ? AND day >= ? AND day <= ?
           GROUP BY referrer_host ORDER BY views DESC, host ASC LIMIT ?`,
        )
        .bind(siteId, window.from, window.to, limit)
        .all<ReferrerTotals>();
      return results;
    },

    async pathDays(siteId, window, after, limit) {
      const t = analyticsPathsDaily;
      const afterDate = after?.date ?? "";
      const results: PathDay[] = await drizzle(db)
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
               (SELECT rowid FROM analytics_visitors WHERE day < ? LIMIT ?)`,
          )
          .bind(day, PURGE_CHUNK)
          .run();
        visitors += result.meta.changes;
        if (result.meta.changes < PURGE_CHUNK) break;
      }
      const salts = await drizzle(db).delete(analyticsSalts).where(lt(analyticsSalts.day, day)).run();
      return { visitors, salts: salts.meta.changes };
    },
  };
}
