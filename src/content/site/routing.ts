/**
 * How content's RPC methods and queue consumers find a site's group (docs/decisions/site-groups.md, "How each
 * way in finds its group", issue 38): by the site id their input or message carries, through the chooser
 * (core/groups.ts). A site the directory does not know has no group: the caller answers as for the missing
 * site it is. A batch of messages is split by group, so each group is visited once per batch.
 */
import { pool } from "../../lib/pool";
import type { Env, WorkerEnv } from "../core/bindings";
import { onGroup, sitesByGroup } from "../core/groups";

/** Items split by their site's group (in the input's order within a group), and those with no group. */
export interface ByGroup<T> {
  groups: Map<string, T[]>;
  /** Items whose site id is missing, or names a site the directory does not know. */
  unrouted: T[];
}

/** Splits `items` by the group of the site `siteOf` names (null: no site id). One directory read for the lot. */
export async function bySiteGroup<T>(
  env: WorkerEnv,
  items: readonly T[],
  siteOf: (item: T) => string | null,
): Promise<ByGroup<T>> {
  const sites = items.map(siteOf);
  const known = sites.filter((s): s is string => s !== null);
  const groupOfSite = new Map<string, string>();
  for (const [group, ids] of await sitesByGroup(env, known)) {
    for (const id of ids) groupOfSite.set(id, group);
  }
  const groups = new Map<string, T[]>();
  const unrouted: T[] = [];
  items.forEach((item, i) => {
    const site = sites[i];
    const group = site ? groupOfSite.get(site) : undefined;
    if (!group) {
      unrouted.push(item);
      return;
    }
    const list = groups.get(group) ?? [];
    list.push(item);
    groups.set(group, list);
  });
  return { groups, unrouted };
}

/**
 * Runs `work` on each group of `groups` (one call per group, at most `concurrency` at a time), in group name
 * order.
 */
export async function onEachGroupOf<T, R>(
  env: WorkerEnv,
  groups: Map<string, T[]>,
  work: (groupEnv: Env, items: T[], group: string) => Promise<R>,
  concurrency = 4,
): Promise<R[]> {
  const entries = [...groups].sort(([a], [b]) => a.localeCompare(b));
  return pool(entries, concurrency, ([group, items]) => work(onGroup(env, group), items, group));
}

/**
 * The answers of a call that names many sites (`healthFacts`, `siteIntegrations`) by site: one call per group
 * with that group's sites. Sites the directory does not know have no answer; the caller answers them as its
 * single-database form did (a site with nothing), in its input's order.
 */
export async function answersAcrossGroups<R extends { site_id: string }>(
  env: WorkerEnv,
  siteIds: readonly string[],
  call: (groupEnv: Env, siteIds: string[]) => Promise<R[]>,
): Promise<Map<string, R>> {
  const { groups } = await bySiteGroup(env, [...new Set(siteIds)], (id) => id);
  const answers = new Map<string, R>();
  for (const rows of await onEachGroupOf(env, groups, (groupEnv, ids) => call(groupEnv, ids))) {
    for (const row of rows) answers.set(row.site_id, row);
  }
  return answers;
}
