/**
 * The fence seen from a whole-group pass (a cron: scheduled publication, redelivery, purges;
 * docs/decisions/site-groups.md "Moving a site"). A pass over every site of a group that touched one row of a
 * site the group's fence closes (a site moving out of the group, or copied into it and not yet switched)
 * would abort whole on the fence's trigger, and every other site of the group would wait for the move. Such
 * passes leave the fenced sites' rows alone: they come back to them after the move, in the site's new group.
 */
import type { SQL } from "drizzle-orm";
import { sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** SQL of the fence as the triggers of migration 0023 read it, for the site whose id is the SQL `siteId`. */
export const fenceClosesSql = (siteId: string) =>
  `EXISTS (SELECT 1 FROM site_fences f WHERE f.site_id = ${siteId} AND f.purging = 0)`;

/** The row's site (its `site_id` column) is not fenced in this group. */
export function notFenced(siteId: SQLiteColumn): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM site_fences f WHERE f.site_id = ${siteId} AND f.purging = 0)`;
}

/**
 * An idempotency record's site is not fenced here: its `site_id` (migration 0024), or for a record written
 * before it, an API key's through its key and a person's (`person:<user>:<site>`) by its suffix (as the
 * fence's triggers and the mover find them).
 */
export function idempotencyNotFenced(siteId: SQLiteColumn, keyId: SQLiteColumn): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM site_fences f WHERE f.purging = 0 AND (
    f.site_id = ${siteId}
    OR (${siteId} IS NULL AND (f.site_id = (SELECT k.site_id FROM api_keys k WHERE k.id = ${keyId})
      OR (${keyId} LIKE 'person:%' AND substr(${keyId}, -length(f.site_id) - 1) = ':' || f.site_id)))))`;
}
