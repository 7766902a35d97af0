/**
 * Content's databases as the tests reach them (docs/decisions/site-groups.md, issue 38): every site group
 * (`TEST_CONTENT_G000`, `TEST_CONTENT_G001`, … of vitest.config.ts, the same ids as the content worker's
 * `DB_G…` bindings) and the directory (`TEST_CONTENT_DIRECTORY`). A test that reads or writes a site's
 * content rows directly asks `contentDbOf(siteId)`: the group the directory placed the site in, as the
 * worker's chooser finds it. Reading a guessed group instead would pass where the worker wrote to the wrong
 * one; this fails (a site the directory does not know throws).
 */
import { env } from "cloudflare:workers";

const bindings = env as unknown as Record<string, unknown>;
const GROUP_BINDING = /^TEST_CONTENT_(G\d{3})$/;

/** The directory database (site → group, key hash → site). */
export const contentDirectory = bindings.TEST_CONTENT_DIRECTORY as D1Database;

/** Every group's database by group name (g000, g001, …), in order. */
export const contentGroups: ReadonlyMap<string, D1Database> = new Map(
  Object.keys(bindings)
    .map((name) => [name, GROUP_BINDING.exec(name)?.[1]] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .sort(([, a], [, b]) => a.localeCompare(b))
    .map(([name, group]) => [group.toLowerCase(), bindings[name] as D1Database]),
);
if (contentGroups.size < 2) {
  throw new Error("test/support/content-groups.ts: the test project binds fewer than two content groups");
}

/** The group the directory placed the site in (throws for a site content never met). */
export async function contentGroupOf(siteId: string): Promise<string> {
  const row = await contentDirectory
    .prepare("SELECT group_name FROM site_groups WHERE site_id = ?")
    .bind(siteId)
    .first<{ group_name: string }>();
  if (!row) throw new Error(`content's directory has no site ${siteId}`);
  return row.group_name;
}

/** A group's database by name. */
export function contentGroupDb(group: string): D1Database {
  const db = contentGroups.get(group);
  if (!db) throw new Error(`no test binding for content group ${group}`);
  return db;
}

/** The database of the site's group: where the worker keeps the site's content rows. */
export async function contentDbOf(siteId: string): Promise<D1Database> {
  return contentGroupDb(await contentGroupOf(siteId));
}

/** The group databases other than the site's (a row of the site must never be there). */
export async function otherContentDbs(siteId: string): Promise<D1Database[]> {
  const group = await contentGroupOf(siteId);
  return [...contentGroups].filter(([name]) => name !== group).map(([, db]) => db);
}

/** Every group's database, in group order (tables of no one site: salts, sweeps, counts across content). */
export function allContentDbs(): D1Database[] {
  return [...contentGroups.values()];
}
