/**
 * The analytics store: what collection writes and the analytics reads need, as one small interface so
 * the backend can be swapped (D1 today, `analytics/store.ts`; a Workers Analytics Engine or queue-buffered
 * adapter would implement the same methods). Handlers reach it as `c.get("services").analytics`.
 * Every read and write is of one site: the site id always comes from the API key.
 */
import type { AnalyticsWindow } from "./window";

/** One human page view, ready to count: never an IP or a user agent, only the day's visitor id. */
export interface PageView {
  siteId: string;
  /** UTC day of the view, `YYYY-MM-DD`. */
  day: string;
  path: string;
  /** The day's salted hash of site, IP and user agent. */
  visitorId: string;
  /** Another site's host the visitor came from, or null. */
  referrerHost: string | null;
}

export interface DayTotals {
  date: string;
  views: number;
  visitors: number;
  bot_views: number;
}

export interface PathTotals {
  path: string;
  views: number;
  visitors: number;
}

export interface PathDay extends PathTotals {
  date: string;
}

export interface ReferrerTotals {
  host: string;
  views: number;
}

export interface AnalyticsStore {
  /** The random salt of a UTC day, created by the first caller of the day. */
  daySalt(day: string): Promise<string>;
  /** Counts a human view: views, and a visitor the first time the id is seen that day (site and path). */
  recordView(view: PageView): Promise<void>;
  /** Counts a bot hit of the site apart (never in the human numbers). */
  recordBot(siteId: string, day: string): Promise<void>;
  /** The days of the window that have any count, in order (the others are zeros). */
  days(siteId: string, window: AnalyticsWindow): Promise<DayTotals[]>;
  /**
   * Paths of the window ranked by views, then visitors, then path (a stable order for `offset`): one page,
   * and how many paths the window has. A path's visitors are the sum of its daily unique visitors.
   */
  topPaths(
    siteId: string,
    window: AnalyticsWindow,
    page: { limit: number; offset: number },
  ): Promise<{ items: PathTotals[]; total: number }>;
  topReferrers(siteId: string, window: AnalyticsWindow, limit: number): Promise<ReferrerTotals[]>;
  /** Per (day, path) counts in (day, path) order, `limit` rows after `after` (keyset). */
  pathDays(
    siteId: string,
    window: AnalyticsWindow,
    after: { date: string; path: string } | null,
    limit: number,
  ): Promise<PathDay[]>;
  /** Deletes the raw data (visitor ids and salts) of the days before `day`; the rollups stay. */
  purgeRawBefore(day: string): Promise<{ visitors: number; salts: number }>;
}
