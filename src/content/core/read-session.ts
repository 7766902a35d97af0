/**
 * D1 read replication through the Sessions API (docs/capacity.md, step 2). Every `/v1/*` request runs its
 * D1 queries in one session: a read (GET, HEAD) starts where the client's bookmark says (`X-Bookmark`, a
 * bookmark this API returned), else at the nearest replica (`first-unconstrained`); a write starts at the
 * primary (`first-primary`). The answer carries the session's bookmark in `X-Bookmark`, so a client that
 * sends back the bookmark of its write reads that write (sequential consistency within the session),
 * wherever its read lands. Reads that must be exact (a key for a write, a lead read, an export) read the
 * key on the primary itself (`primaryDb`), never on a replica that could still hold a revoked key.
 *
 * Site groups (issue 38): the session opens on the request's site's group once the site is known, in
 * core/routing.ts (`enterGroup`); the bookmark is of that group's database.
 */
import type { Context } from "hono";
import { fail } from "../errors";
import type { AppEnv } from "./bindings";

export const BOOKMARK_HEADER = "x-bookmark";

/**
 * A bookmark of this API: the group's name, a dot, and D1's bookmark of that group's database (a Durable
 * Object storage bookmark: three 8-digit and one 32-digit hex groups). D1's bookmark alone (answered before
 * site groups) is read as a bookmark of no group.
 */
const BOOKMARK = /^(?:(g\d{3})\.)?([0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32})$/;

export interface Bookmark {
  /** The group whose database answered it; null for D1's bookmark alone. */
  group: string | null;
  /** D1's bookmark. */
  d1: string;
}

/** The request's bookmark, or null; a malformed one is 400 (never guessed at, never ignored). */
export function requestBookmark(c: Context<AppEnv>): Bookmark | null {
  const value = c.req.header(BOOKMARK_HEADER);
  if (value === undefined) return null;
  const match = BOOKMARK.exec(value);
  if (!match) fail("BAD_REQUEST", "X-Bookmark must be a bookmark this API returned.");
  return { group: match[1] ?? null, d1: match[2]! };
}

/**
 * Where a read's D1 session on `group` starts: at the client's bookmark when that group's database answered
 * it; at the primary for a bookmark of another group (the site moved since) or of none, since D1's bookmark
 * is a position in one database's history and means nothing in another's, while the primary holds every
 * write of the site that any of its bookmarks saw (a move copies them all before the switch); at the nearest
 * replica without one.
 */
export function readSessionStart(bookmark: Bookmark | null, group: string): string {
  if (!bookmark) return "first-unconstrained";
  return bookmark.group === group ? bookmark.d1 : "first-primary";
}

/** The bookmark answered for a session on `group` whose D1 bookmark is `d1`. */
export const answeredBookmark = (group: string, d1: string): string => `${group}.${d1}`;
