/**
 * Site groups (docs/decisions/site-groups.md, issue 38): content's tables live in several D1 databases of
 * the same migrations, `content-g000`, `content-g001`, … (bindings `DB_G000`, …, listed in order by the
 * `CONTENT_GROUPS` var), and a small directory database (`DIRECTORY`) maps each site to its group. Every
 * content query runs on its site's group: an entry point (a request once its site is known, an RPC call,
 * a queue message, a cron's pass over each group) routes the worker's env here, and the `Env` it hands on
 * carries that group's database as `DB`. The raw env (`WorkerEnv`) has no `DB`, so a path that skips the
 * chooser does not type-check, and test/structure/site-groups.unit.test.ts keeps the group bindings out of
 * every other module.
 *
 * Placement: a new site goes to the group holding the fewest sites (ties to the lowest name), so a group
 * added by configuration fills first; a site stays in its group until an operator moves it.
 */
import { pool } from "../../lib/pool";
import type { Env, WorkerEnv } from "./bindings";
import {
  clearSiteMovingRow,
  groupSiteCounts,
  keySiteOf,
  markSiteMovingRow,
  placeSiteRow,
  recordKeySiteRow,
  type SiteGroupRow,
  siteGroupRow,
  siteGroupRows,
  siteIdOfSlug,
  switchSiteGroupRow,
} from "./directory-store";

const GROUP_NAME = /^g\d{3}$/;

/** The configured groups, in order (`CONTENT_GROUPS`, e.g. "g000,g001"). */
export function groupNames(env: WorkerEnv): string[] {
  const names = (env.CONTENT_GROUPS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error("CONTENT_GROUPS lists no group");
  for (const name of names) {
    if (!GROUP_NAME.test(name)) throw new Error(`CONTENT_GROUPS: ${name} is not a group name (g000)`);
  }
  return names;
}

/** The binding name of a group's database: g001 → DB_G001. */
export function groupBinding(group: string): string {
  return `DB_${group.toUpperCase()}`;
}

/** A group's database (its binding must exist: a group listed without one is a configuration error). */
export function groupDatabase(env: WorkerEnv, group: string): D1Database {
  const db = (env as unknown as Record<string, D1Database | undefined>)[groupBinding(group)];
  if (!db) throw new Error(`content group ${group} has no ${groupBinding(group)} binding`);
  return db;
}

/** The directory's database. */
export function directoryDatabase(env: WorkerEnv): D1Database {
  return env.DIRECTORY;
}

/** `env` routed to a database of a group (the group's binding, or a D1 session of it). */
export function onDatabase(env: WorkerEnv, db: D1Database): Env {
  return { ...env, DB: db };
}

/** `env` routed to a group. */
export function onGroup(env: WorkerEnv, group: string): Env {
  return onDatabase(env, groupDatabase(env, group));
}

/** A site's routing as this isolate knows it. */
export interface SiteRoute {
  siteId: string;
  group: string;
  version: number;
  /** Set while a move copies the site: its writes answer 503. */
  movingTo: string | null;
}

/** How long an isolate trusts a site's routing row (a move's fence covers a stale one: site-groups.md). */
export const ROUTE_TTL_MS = 30_000;
const ROUTE_MAX_ENTRIES = 10_000;
const routes = new Map<string, { route: SiteRoute; until: number }>();
/** An API key's site never changes: kept until the map is full, then the oldest half is dropped. */
const keySitesCache = new Map<string, string>();
const KEY_SITES_MAX = 50_000;

function remember(row: SiteGroupRow, now = Date.now()): SiteRoute {
  const route = { siteId: row.site_id, group: row.group_name, version: row.version, movingTo: row.moving_to };
  if (routes.size >= ROUTE_MAX_ENTRIES) routes.clear();
  routes.set(row.site_id, { route, until: now + ROUTE_TTL_MS });
  return route;
}

/** Forgets this isolate's routing of a site (after a move, or a write the old group refused). */
export function forgetRoute(siteId: string): void {
  routes.delete(siteId);
}

/**
 * The site's routing, or null when content does not know the site. `fresh` reads the directory itself
 * (an operator's view, a move).
 */
export async function siteRoute(
  env: WorkerEnv,
  siteId: string,
  options: { fresh?: boolean } = {},
): Promise<SiteRoute | null> {
  const now = Date.now();
  const cached = options.fresh ? undefined : routes.get(siteId);
  if (cached && cached.until > now) return cached.route;
  const row = await siteGroupRow(directoryDatabase(env), siteId);
  if (!row) {
    routes.delete(siteId);
    return null;
  }
  return remember(row, now);
}

/** `env` routed to the site's group, or null when content does not know the site. */
export async function siteEnv(env: WorkerEnv, siteId: string): Promise<Env | null> {
  const route = await siteRoute(env, siteId);
  return route ? onGroup(env, route.group) : null;
}

/** The site id a slug names (feeds and sitemaps by slug), or null. */
export async function siteIdBySlug(env: WorkerEnv, slug: string): Promise<string | null> {
  return siteIdOfSlug(directoryDatabase(env), slug);
}

/** The group a new site goes to: the configured group holding the fewest sites. */
async function emptiestGroup(env: WorkerEnv): Promise<string> {
  const counts = await groupSiteCounts(directoryDatabase(env));
  let best: { group: string; n: number } | null = null;
  for (const group of groupNames(env)) {
    const n = counts.get(group) ?? 0;
    if (!best || n < best.n) best = { group, n };
  }
  if (!best) throw new Error("CONTENT_GROUPS lists no group");
  return best.group;
}

/**
 * The site's routing, placing it first when content meets it for the first time (the sites service's
 * projection push). Two first pushes at once may both count; the directory keeps the first row.
 */
export async function placeSite(
  env: WorkerEnv,
  site: { id: string; slug: string },
  now = new Date().toISOString(),
): Promise<SiteRoute> {
  const known = routes.get(site.id);
  const group = known ? known.route.group : await emptiestGroup(env);
  return remember(await placeSiteRow(directoryDatabase(env), site, group, now));
}

/** The site of an API key by its keyed hash, or null (an unknown key). */
export async function siteOfKey(env: WorkerEnv, keyHash: string): Promise<string | null> {
  const cached = keySitesCache.get(keyHash);
  if (cached) return cached;
  const siteId = await keySiteOf(directoryDatabase(env), keyHash);
  if (siteId) {
    if (keySitesCache.size >= KEY_SITES_MAX) keySitesCache.clear();
    keySitesCache.set(keyHash, siteId);
  }
  return siteId;
}

/** Records an API key's site: before the key's row is written in its group (a lone directory row is inert). */
export async function recordKeySite(env: WorkerEnv, keyHash: string, siteId: string): Promise<void> {
  await recordKeySiteRow(directoryDatabase(env), keyHash, siteId);
}

/**
 * Runs `work` once per group, at most `concurrency` at a time (crons, metrics, operator views), and hands
 * back the results in group order.
 */
export async function forEachGroup<T>(
  env: WorkerEnv,
  work: (groupEnv: Env, group: string) => Promise<T>,
  concurrency = 4,
): Promise<T[]> {
  return pool(groupNames(env), concurrency, (group) => work(onGroup(env, group), group));
}

/** Groups `siteIds` by their group (unknown sites left out), for calls that name many sites. */
export async function sitesByGroup(
  env: WorkerEnv,
  siteIds: readonly string[],
): Promise<Map<string, string[]>> {
  const now = Date.now();
  const byGroup = new Map<string, string[]>();
  const add = (route: SiteRoute) => {
    const list = byGroup.get(route.group) ?? [];
    list.push(route.siteId);
    byGroup.set(route.group, list);
  };
  const unknown: string[] = [];
  for (const siteId of new Set(siteIds)) {
    const cached = routes.get(siteId);
    if (cached && cached.until > now) add(cached.route);
    else unknown.push(siteId);
  }
  for (const row of await siteGroupRows(directoryDatabase(env), unknown)) add(remember(row, now));
  return byGroup;
}

/**
 * A site's move (src/content/groups/mover.ts, site-groups.md "Moving a site"): the directory marks it moving
 * to `to` while its routing version is `version`. False when the row moved on (another move, a switch).
 */
export async function markMoving(
  env: WorkerEnv,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  const done = await markSiteMovingRow(directoryDatabase(env), siteId, version, to);
  forgetRoute(siteId);
  return done;
}

/** The move's switch: the site's group becomes `to` and its version moves by one (compare-and-set on `version`). */
export async function switchGroup(
  env: WorkerEnv,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  const done = await switchSiteGroupRow(directoryDatabase(env), siteId, version, to);
  forgetRoute(siteId);
  return done;
}

/** A rolled-back move: the mark is cleared, the site stays in its group (compare-and-set on `version`). */
export async function clearMoving(
  env: WorkerEnv,
  siteId: string,
  version: number,
  to: string,
): Promise<boolean> {
  const done = await clearSiteMovingRow(directoryDatabase(env), siteId, version, to);
  forgetRoute(siteId);
  return done;
}

/** Each configured group with the number of sites the directory places there (the operator's view). */
export async function groupSiteCountList(env: WorkerEnv): Promise<{ group: string; sites: number }[]> {
  const counts = await groupSiteCounts(directoryDatabase(env));
  return groupNames(env).map((group) => ({ group, sites: counts.get(group) ?? 0 }));
}
