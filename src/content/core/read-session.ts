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

/** D1's bookmark: a Durable Object storage bookmark, three 8-digit and one 32-digit hex groups. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** The request's bookmark, or null; a malformed one is 400 (never guessed at, never ignored). */
export function requestBookmark(c: Context<AppEnv>): string | null {
  const value = c.req.header(BOOKMARK_HEADER);
  if (value === undefined) return null;
  if (!BOOKMARK.test(value)) fail("BAD_REQUEST", "X-Bookmark must be a bookmark this API returned.");
  return value;
}
