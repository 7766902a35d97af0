/**
 * How an HTTP request of the content app finds its site's group (docs/decisions/site-groups.md, "How each
 * way in finds its group", issue 38). The runtime's env has no content database: until the request is
 * routed, `c.env.DB` is `UNROUTED_DB`, which throws on any use, so a route that reads content before it
 * knows its site fails loudly instead of reading some other group.
 *
 * Once the request's site is known (an API key's site by the directory, an agent token's site claim, the
 * site id in the path, a feed's slug, a preview token's site), `enterSite` routes it: `c.env.DB` becomes the
 * request's D1 session on that group (a `/v1/*` request: core/read-session.ts' bookmark rules) or the group's
 * database itself (the dashboard's `/api/v1/*` routes and `/media/*`, which never read a replica),
 * `primaryDb` the group's database, and the services (`c.get("services")`) are rebuilt on it. A request runs
 * on one group: routing it again to the same group is a no-op, to another one a bug (thrown).
 *
 * Requests the app makes to itself (an MCP tool call, mcp/routes.ts) carry their caller's routing
 * (`carryRouting`): they run in the caller's group and D1 session.
 */
import type { Context, MiddlewareHandler } from "hono";
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import type { AppEnv, Env } from "./bindings";
import { groupDatabase, onDatabase, siteRoute } from "./groups";
import { answeredBookmark, BOOKMARK_HEADER, readSessionStart, requestBookmark } from "./read-session";
import { contentServices } from "./services";

function unrouted(): never {
  throw new Error("content: the request read its database before it was routed to its site's group");
}

/** `c.env.DB` of a request not routed yet: every use throws (a route that skipped routing is a bug). */
export const UNROUTED_DB: D1Database = {
  prepare: unrouted,
  batch: unrouted,
  exec: unrouted,
  withSession: unrouted,
  dump: unrouted,
};

/** A request routed to its site's group. */
export interface RoutedRequest {
  /** The env its queries run on: `DB` is the request's D1 session on the group (or the group's database). */
  env: Env;
  /** The group's database itself (exact reads: a key for a write, a membership's end). */
  primaryDb: D1Database;
}

interface Routing extends RoutedRequest {
  group: string;
  session: D1DatabaseSession | null;
  /** False for an in-process call running in its caller's session (its caller answers the bookmark). */
  own: boolean;
}

const routings = new WeakMap<Context<AppEnv>, Routing>();
const carried = new WeakMap<Request, Routing>();

/**
 * App-wide, first of the content app's own middleware: a malformed `X-Bookmark` of a `/v1/*` request is 400
 * before anything else reads the request; `c.env.DB` is unrouted until a route routes it; a successful answer
 * carries the bookmark of the request's D1 session, when it opened one. A refusal (4xx, 5xx) carries none: it
 * wrote nothing, and whether the request was routed (a revoked key's site is known, a never-made key's is not;
 * a missing form of a known site, a site content never met) must not show in its headers.
 */
export function requestRouting(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.path.startsWith("/v1/")) requestBookmark(c);
    c.env = { ...c.env, DB: UNROUTED_DB };
    await next();
    const routing = routings.get(c);
    const after = routing?.own ? routing.session?.getBookmark() : null;
    if (routing && after && c.res.status < 400) {
      c.res.headers.set(BOOKMARK_HEADER, answeredBookmark(routing.group, after));
    }
  };
}

/**
 * Routes the request to `group` (see the module's comment) and answers the routed env. A `/v1/*` read (GET,
 * HEAD) starts its session where the client's bookmark says, else at the nearest replica; a write starts at
 * the primary.
 */
export function enterGroup(c: Context<AppEnv>, group: string): RoutedRequest {
  const current = routings.get(c);
  if (current) {
    if (current.group === group) return current;
    throw new Error(`content: a request routed to group ${current.group} cannot move to ${group}`);
  }
  const caller = carried.get(c.req.raw);
  let routing: Routing;
  if (caller && caller.group === group) routing = { ...caller, own: false };
  else {
    const primary = groupDatabase(c.env, group);
    let session: D1DatabaseSession | null = null;
    if (c.req.path.startsWith("/v1/")) {
      const reading = c.req.method === "GET" || c.req.method === "HEAD";
      session = primary.withSession(reading ? readSessionStart(requestBookmark(c), group) : "first-primary");
    }
    // The session stands in for the database for the rest of the request (same prepare and batch).
    const db = session ? (session as unknown as D1Database) : primary;
    routing = { group, env: onDatabase(c.env, db), primaryDb: primary, session, own: true };
  }
  routings.set(c, routing);
  c.env = routing.env;
  c.set("primaryDb", routing.primaryDb);
  c.set("services", contentServices(routing.env, c.get("log")));
  return routing;
}

/** Routes the request to the site's group; null when content does not know the site (no directory row). */
export async function enterSite(c: Context<AppEnv>, siteId: string): Promise<RoutedRequest | null> {
  const route = await siteRoute(c.env, siteId);
  return route ? enterGroup(c, route.group) : null;
}

/**
 * Routes the request to the site a path or token names (`raw`, parsed as a site id); `unknown` is the
 * route's own answer to a site it does not have (a malformed id and a site the directory does not know
 * answer the same). Answers the routed env.
 */
export async function routeToSite(
  c: Context<AppEnv>,
  raw: string | null | undefined,
  unknown: () => ApiError,
): Promise<Env> {
  const siteId = parseId(raw ?? "");
  const routed = siteId ? await enterSite(c, siteId) : null;
  if (!routed) throw unknown();
  return routed.env;
}

/** Marks `request`, about to go through this app in this isolate, to run in this request's group and session. */
export function carryRouting(c: Context<AppEnv>, request: Request): Request {
  const routing = routings.get(c);
  if (routing) carried.set(request, routing);
  return request;
}
