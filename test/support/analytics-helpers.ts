/**
 * Test helpers of content's analytics: a site with the keys analytics needs (a pk_ key the public site
 * collects with, a ck_ key with analytics:read and export), page views sent as a browser's
 * `navigator.sendBeacon` sends them, and rollup rows of past days written straight to D1 (collection
 * only ever counts today).
 */

import { uniqueIp } from "./client-ip";
import { contentDbOf } from "./content-groups";
import { BASE, content, createKey, makeSite, ORIGIN } from "./content-helpers";

export const BROWSER_UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
export const OTHER_BROWSER_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** A client IP no other test uses (the collection limiter counts per site and IP). */
export function freshIp(): string {
  return uniqueIp();
}

export async function analyticsTenant(options: { primary_domain?: string; default_language?: string } = {}) {
  const site = await makeSite(options);
  const pk = await createKey(site, { kind: "public", scopes: ["posts:read"] });
  const ck = await createKey(site, { scopes: ["analytics:read", "export", "posts:write", "posts:read"] });
  return { site, pk: pk.key, ck: ck.key };
}

export interface BeaconOptions {
  ip?: string;
  userAgent?: string | null;
  origin?: string | null;
  headers?: Record<string, string>;
  referrer?: string;
  /** Sends the key in Authorization instead of the `key` query. */
  keyInHeader?: boolean;
  contentType?: string;
  body?: string;
}

/** A page view as `navigator.sendBeacon(url, JSON.stringify({path, referrer}))` sends it (text/plain). */
export function beacon(key: string, path: string, options: BeaconOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": options.contentType ?? "text/plain;charset=UTF-8",
    "cf-connecting-ip": options.ip ?? "203.0.113.10",
    ...(options.headers ?? {}),
  };
  const userAgent = options.userAgent === undefined ? BROWSER_UA : options.userAgent;
  if (userAgent !== null) headers["user-agent"] = userAgent;
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  if (origin !== null) headers.origin = origin;
  if (options.keyInHeader) headers.authorization = `Bearer ${key}`;
  const url = options.keyInHeader
    ? `${BASE}/v1/analytics/collect`
    : `${BASE}/v1/analytics/collect?key=${encodeURIComponent(key)}`;
  const body =
    options.body ??
    JSON.stringify({ path, ...(options.referrer !== undefined ? { referrer: options.referrer } : {}) });
  return content.fetch(new Request(url, { method: "POST", headers, body }));
}

/** Sends a beacon that must be read (204). */
export async function view(key: string, path: string, options: BeaconOptions = {}): Promise<void> {
  const res = await beacon(key, path, options);
  if (res.status !== 204) throw new Error(`view: ${res.status} ${await res.text()}`);
}

/** Rollups of a past day, as collection would have left them. */
export async function seedDay(
  siteId: string,
  day: string,
  counts: { views: number; visitors: number; bot_views?: number; paths?: Record<string, [number, number]> },
): Promise<void> {
  const db = await contentDbOf(siteId);
  const statements = [
    db
      .prepare(
        "INSERT INTO analytics_daily (site_id, day, views, visitors, bot_views) VALUES (?, ?, ?, ?, ?)",
      )
      .bind(siteId, day, counts.views, counts.visitors, counts.bot_views ?? 0),
    ...Object.entries(counts.paths ?? {}).map(([path, [views, visitors]]) =>
      db
        .prepare(
          "INSERT INTO analytics_paths_daily (site_id, day, path, views, visitors) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(siteId, day, path, views, visitors),
    ),
  ];
  await db.batch(statements);
}

export function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}

export function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}
