/**
 * `GET /v1/posts`: the query rules (plain functions over the parsed query) and the listing itself, the
 * public keyset listing or, with `status`, the authenticated PostSummary listing.
 */

import type { Env } from "../core/bindings";
import { type CursorPayload, decodeCursor, encodeCursor } from "../core/cursor";
import { includesTotal } from "../core/list-include";
import { parseRfc3339 } from "../core/time";
import { fail } from "../errors";
import type { SiteAddress } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import { canonicalLanguage } from "./language";
import { listItem, postSummary } from "./shapes";
import { isValidTypeSlug } from "./slug";
import {
  LISTABLE_STATUSES,
  type ListableStatus,
  type ListFilters,
  listPostsByStatus,
  listPublicPosts,
} from "./store";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
const MAX_TERMS = 20;

/** The query of `GET /v1/posts` as its schema parses it: every parameter an optional string. */
export interface PostListQuery {
  limit?: string;
  cursor?: string;
  category?: string;
  tag?: string;
  q?: string;
  since?: string;
  language?: string;
  status?: string;
  post_type?: string;
  author?: string;
  include?: string;
}

/** A valid listing request: `statuses` is null for the public listing; `total`: include=total. */
export interface PostListRequest {
  limit: number;
  statuses: ListableStatus[] | null;
  filters: ListFilters;
  cursor: string | null;
  total: boolean;
}

/** `total` (include=total): every post the listing's filters match, not the page. */
type Total = { total?: number };

export type PostListPage =
  | {
      mode: "public";
      body: { items: ReturnType<typeof listItem>[]; next_cursor: string | null } & Total;
      /** The site's next scheduled publication: until then the page cannot change by the clock alone. */
      nextPublicationAt: string | null;
    }
  | { mode: "status"; body: { items: ReturnType<typeof postSummary>[]; next_cursor: string | null } & Total };

function totalMember(total: number | null): Total {
  return total !== null ? { total } : {};
}

export function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    fail("INVALID_LIMIT", `limit must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  return n;
}

export function parseStatuses(value: string): ListableStatus[] {
  const items = [...new Set(value.split(",").map((s) => s.trim()))];
  if (items.length === 0 || items.some((s) => !(LISTABLE_STATUSES as readonly string[]).includes(s))) {
    fail("INVALID_STATUS", `status must be a comma-separated list of ${LISTABLE_STATUSES.join(", ")}.`);
  }
  return items as ListableStatus[];
}

/**
 * `category` and `tag`: comma-separated slugs (ANY), at most 20, sorted: the order means nothing, so
 * `a,b` and `b,a` are one listing (one cursor binding, one edge-cache entry).
 */
export function slugList(name: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  const items = [...new Set(value.split(",").map((s) => s.trim()))].sort();
  if (items.length > MAX_TERMS || items.some((s) => !isValidTypeSlug(s))) {
    fail("BAD_REQUEST", `${name} must be up to ${MAX_TERMS} comma-separated slugs.`);
  }
  return items;
}

/** Turns free text into an FTS5 expression of quoted prefix terms (no FTS syntax reaches MATCH). */
export function ftsQuery(q: string | undefined): string | null {
  if (q === undefined) return null;
  if (q.length > 200) fail("BAD_REQUEST", "q is limited to 200 characters.");
  // Terms are runs of letters, marks and digits (what FTS5's unicode61 tokenizer indexes); everything else,
  // including quotes, operators and control characters (a NUL ends an FTS5 string early), separates them.
  const terms = q
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, 10);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t}"*`).join(" ");
}

function languageFilter(value: string | undefined): string | null {
  if (value === undefined) return null;
  return canonicalLanguage(value) || fail("INVALID_LANGUAGE", "language must be a BCP-47 tag.");
}

function sinceFilter(value: string | undefined): string | null {
  if (value === undefined) return null;
  return parseRfc3339(value) || fail("INVALID_SINCE", "since must be an RFC 3339 timestamp.");
}

/** Every rule of the query, checked in one fixed order so the same bad query always gets the same error. */
export function postListRequest(query: PostListQuery): PostListRequest {
  const limit = parseLimit(query.limit);
  const statuses = query.status !== undefined ? parseStatuses(query.status) : null;
  const language = languageFilter(query.language);
  const since = sinceFilter(query.since);
  if (query.post_type !== undefined && !isValidTypeSlug(query.post_type)) {
    fail("INVALID_POST_TYPE", "post_type must be a slug.");
  }
  if (query.author !== undefined && !isValidTypeSlug(query.author)) {
    fail("BAD_REQUEST", "author must be a slug.");
  }
  const filters: ListFilters = {
    categories: slugList("category", query.category),
    tags: slugList("tag", query.tag),
    match: ftsQuery(query.q),
    since,
    language,
    postType: query.post_type ?? null,
    // author filters the public listing only.
    author: statuses ? null : (query.author ?? null),
  };
  return { limit, statuses, filters, cursor: query.cursor ?? null, total: includesTotal(query.include) };
}

/** Binds a cursor to its site and filters: replayed elsewhere it is a 400. */
async function listingFingerprint(siteId: string, request: PostListRequest): Promise<string> {
  const { statuses, filters } = request;
  const mode = statuses ? "a" : "p";
  const print = JSON.stringify({ s: siteId, m: mode, statuses: statuses ?? [], ...filters });
  return (await sha256Base64url(print)).slice(0, 16);
}

/** Where the page starts: the verified cursor of this listing, or null for the first page. */
async function resumePoint(
  env: Env,
  cursor: string | null,
  mode: CursorPayload["m"],
  fingerprint: string,
): Promise<CursorPayload | null> {
  if (cursor === null) return null;
  const payload = await decodeCursor(env.CURSOR_SECRET, cursor);
  if (!payload || payload.f !== fingerprint || payload.m !== mode) {
    fail("INVALID_CURSOR", "cursor is corrupt or belongs to another listing.");
  }
  return payload;
}

/**
 * One page of the key's site: the public listing, or the status listing when `statuses` is set. `cached`:
 * the public page will be cached, so the site's next publication (what bounds its freshness) is read too.
 */
export async function listPosts(
  env: Env,
  site: SiteAddress,
  request: PostListRequest,
  now: string,
  cached = true,
): Promise<PostListPage> {
  const siteId = site.id;
  const at = { site, platformDomain: env.PLATFORM_DOMAIN, mediaBase: env.MEDIA_PUBLIC_BASE };
  const { limit, statuses, filters } = request;
  const fingerprint = await listingFingerprint(siteId, request);
  const resume = await resumePoint(env, request.cursor, statuses ? "a" : "p", fingerprint);

  if (statuses) {
    const afterId = resume?.i ?? null;
    const { rows, total } = await listPostsByStatus(
      env.DB,
      siteId,
      now,
      statuses,
      filters,
      afterId,
      limit,
      request.total,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next =
      rows.length > limit && last
        ? await encodeCursor(env.CURSOR_SECRET, { m: "a", i: last.id, f: fingerprint })
        : null;
    const items = page.map((r) => postSummary(r, now, at));
    return { mode: "status", body: { items, next_cursor: next, ...totalMember(total) } };
  }

  const after = resume?.p !== undefined ? { publishedAt: resume.p, id: resume.i } : null;
  const { rows, nextPublicationAt, total } = await listPublicPosts(
    env.DB,
    siteId,
    now,
    filters,
    after,
    limit,
    cached,
    request.total,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next =
    rows.length > limit && last
      ? await encodeCursor(env.CURSOR_SECRET, { m: "p", p: last.published_at!, i: last.id, f: fingerprint })
      : null;
  const body = { items: page.map((r) => listItem(r, now, at)), next_cursor: next, ...totalMember(total) };
  return { mode: "public", body, nextPublicationAt };
}
