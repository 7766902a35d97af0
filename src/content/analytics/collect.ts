/**
 * `POST /v1/analytics/collect`: one page view of the key's site. Bots are counted apart, speculative
 * loads not at all; a human view is counted with a visitor id that is not personal data: the SHA-256 of
 * the day's random salt, the site, the client IP and the user agent. Neither the IP nor the user agent is
 * stored, and once the day is over the cron deletes its salt and its ids, so no id can be traced back.
 */

import { sha256Base64url } from "../keys/key-hash";
import { classifyHit, parsePageView, referrerHost } from "./page-view";
import type { AnalyticsStore } from "./store-port";
import { utcDay } from "./window";

/** The request facts collection reads; the site comes from the key, never from the body. */
export interface CollectRequest {
  siteId: string;
  headers: Headers;
  /** `CF-Connecting-IP`, as every per-IP rule of the service reads it. */
  ip: string;
  body: string;
}

/** Visitor ids are 128 bits of the hash: collisions stay negligible at any site's daily traffic. */
const VISITOR_ID_LENGTH = 22;

export async function visitorId(
  salt: string,
  siteId: string,
  ip: string,
  userAgent: string,
): Promise<string> {
  const digest = await sha256Base64url(`${salt}\n${siteId}\n${ip}\n${userAgent}`);
  return digest.slice(0, VISITOR_ID_LENGTH);
}

/** The isolate's copy of today's salt, so the hot path reads it from D1 once per isolate and day. */
let cachedSalt: { day: string; salt: Promise<string> } | null = null;

function saltOf(store: AnalyticsStore, day: string): Promise<string> {
  if (cachedSalt?.day !== day) {
    const salt = store.daySalt(day);
    cachedSalt = { day, salt };
    salt.catch(() => {
      if (cachedSalt?.salt === salt) cachedSalt = null;
    });
  }
  return cachedSalt.salt;
}

export async function collectPageView(
  store: AnalyticsStore,
  request: CollectRequest,
  now: Date,
): Promise<void> {
  const view = parsePageView(request.body);
  const day = utcDay(now);
  const kind = classifyHit(request.headers);
  if (kind === "prefetch") return;
  if (kind === "bot") {
    await store.recordBot(request.siteId, day);
    return;
  }
  const userAgent = request.headers.get("user-agent") ?? "";
  await store.recordView({
    siteId: request.siteId,
    day,
    path: view.path,
    visitorId: await visitorId(await saltOf(store, day), request.siteId, request.ip, userAgent),
    referrerHost: referrerHost(view.referrer, request.headers.get("origin") ?? undefined),
  });
}
