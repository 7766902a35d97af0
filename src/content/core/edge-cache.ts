/**
 * Public post answers cached at the edge with the Cache API (per data center, shared by the isolates
 * there), the hottest also in the isolate's memory. An entry is keyed by the request's origin, the key's site, the site's content version, the
 * key's kind and the read's normalized parameters, never by the key itself: every key of one kind of the
 * site shares it, no other site can reach it (the site is in the key), and pk_ and ck_ answers never mix
 * (the kind is in the key). A write moves the site's content version (migration 0012), so readers that
 * know the new version never see an older entry; an entry also expires by the clock at `freshUntil` (at
 * most `PUBLIC_ANSWER_TTL_MS`, and never after the site's next scheduled publication).
 */
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import { clockNow } from "./clock";
import { etagFor } from "./etag";
import { canonicalJson } from "./idempotency-store";

/** Longest life of an entry; also the `max-age` public answers carry. */
export const PUBLIC_ANSWER_TTL_MS = 60_000;
const CACHE_NAME = "content:public-reads";
/** Moves when a deploy changes the shape of the answers (a write moves the content version instead). */
const ANSWER_SHAPE = 2;
const FRESH_UNTIL = "x-fresh-until";

/** A public answer as sent: the exact JSON body and its strong ETag (a hash of that body). */
export interface PublicAnswer {
  body: string;
  etag: string;
}

export async function publicAnswer(value: unknown): Promise<PublicAnswer> {
  const body = JSON.stringify(value);
  return { body, etag: await etagFor(body) };
}

/** A public read's value and until when it stays right (milliseconds since the epoch). */
export interface FreshValue {
  value: unknown;
  freshUntil: number;
}

/** Where the request runs: its origin (entries live under the Worker's own host) and its waitUntil. */
export interface EdgePlace {
  origin: string;
  waitUntil(promise: Promise<unknown>): void;
}

/** Until when an answer read at `now` stays right: its TTL, cut at the site's next scheduled publication. */
export function freshUntil(now: number, nextPublicationAt: string | null): number {
  const next = nextPublicationAt === null ? Number.NaN : Date.parse(nextPublicationAt);
  return Number.isNaN(next) ? now + PUBLIC_ANSWER_TTL_MS : Math.min(now + PUBLIC_ANSWER_TTL_MS, next);
}

/** The entry's URL: a hash of the normalized parameters below the site, its version and the key's kind. */
export async function edgeCacheUrl(
  origin: string,
  key: Pick<KeyContext, "siteId" | "contentVersion" | "kind">,
  read: string,
  params: unknown,
): Promise<string> {
  const digest = await sha256Base64url(canonicalJson(params));
  return `${origin}/__public-reads/${ANSWER_SHAPE}/${key.siteId}/${key.contentVersion}/${key.kind}/${read}/${digest}`;
}

/** Hot answers kept in the isolate as well, in front of the Cache API: the same keys, the same freshness. */
export class IsolateAnswers {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, { answer: PublicAnswer; freshUntil: number }>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(url: string, now: number): PublicAnswer | null {
    const entry = this.entries.get(url);
    if (!entry) return null;
    this.drop(url);
    if (entry.freshUntil <= now) return null;
    this.entries.set(url, entry);
    this.chars += entry.answer.body.length;
    return entry.answer;
  }

  set(url: string, answer: PublicAnswer, freshUntil: number): void {
    this.drop(url);
    if (answer.body.length > this.maxChars / 16) return;
    this.entries.set(url, { answer, freshUntil });
    this.chars += answer.body.length;
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  private drop(url: string): void {
    const entry = this.entries.get(url);
    if (!entry) return;
    this.entries.delete(url);
    this.chars -= entry.answer.body.length;
  }
}

/**
 * The bounds of this isolate's hot answers: 4 Mi characters (at most ~8 MiB, ~4 MiB for ASCII JSON) in all,
 * and enough entries that small answers (a post detail is ~2-5 KB) fill the characters before the count:
 * a site's 1,000 most read posts fit beside its listings. (256 entries held only a quarter of them, and a
 * reader cycling through more posts than an LRU holds never hits it.)
 */
export const HOT_ANSWERS = { maxEntries: 4_096, maxChars: 4 * 1024 * 1024 } as const;
const isolateAnswers = new IsolateAnswers(HOT_ANSWERS.maxEntries, HOT_ANSWERS.maxChars);

/**
 * The cached answer of this read if one is fresh (in this isolate, else in the data center's cache), else
 * `compute(now)`'s, stored for the next reader (the Cache API in the background: a failed store costs only
 * a miss). Errors (400, 404) are thrown, never cached.
 */
export async function cachedPublicAnswer(
  place: EdgePlace,
  key: Pick<KeyContext, "siteId" | "contentVersion" | "kind">,
  read: string,
  params: unknown,
  compute: (now: number) => Promise<FreshValue>,
): Promise<PublicAnswer> {
  const url = await edgeCacheUrl(place.origin, key, read, params);
  const now = clockNow();
  const hot = isolateAnswers.get(url, now);
  if (hot) return hot;
  const cache = await caches.open(CACHE_NAME);
  const hit = await cache.match(url);
  if (hit) {
    const etag = hit.headers.get("etag");
    const until = Number(hit.headers.get(FRESH_UNTIL));
    if (etag && until > now) {
      const answer = { body: await hit.text(), etag };
      isolateAnswers.set(url, answer, until);
      return answer;
    }
    await hit.body?.cancel();
  }
  const fresh = await compute(now);
  const answer = await publicAnswer(fresh.value);
  isolateAnswers.set(url, answer, fresh.freshUntil);
  const seconds = Math.floor((fresh.freshUntil - now) / 1000);
  if (seconds >= 1) {
    const stored = new Response(answer.body, {
      headers: {
        "content-type": "application/json; charset=UTF-8",
        "cache-control": `public, max-age=${seconds}`,
        etag: answer.etag,
        [FRESH_UNTIL]: String(fresh.freshUntil),
      },
    });
    place.waitUntil(cache.put(url, stored).catch(() => undefined));
  }
  return answer;
}
