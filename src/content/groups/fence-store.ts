/**
 * The fence seen from a whole-group pass (a cron: scheduled publication, redelivery, purges;
 * docs/decisions/site-groups.md "Moving a site"). A pass over every site of a group that touched one row of a
 * site the group's fence closes (a site moving out of the group, or copied into it and not yet switched)
 * would abort whole on the fence's trigger, and every other site of the group would wait for the move. Such
 * passes leave the fenced sites' rows alone: they come back to them after the move, in the site's new group.
 * The condition is written here once, as SQL text (the triggers of migrations 0023 and 0024 read it the same).
 */
import { getTableName, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** SQL of the fence as the triggers read it, for the site whose id is the SQL expression `siteId`. */
export const fenceClosesSql = (siteId: string) =>
  `EXISTS (SELECT 1 FROM site_fences f WHERE f.site_id = ${siteId} AND f.purging = 0)`;

/** The row's site (its `site_id` column) is not fenced in this group. */
export function notFenced(siteId: SQLiteColumn): SQL {
  return sql.raw(`NOT ${fenceClosesSql(`"${getTableName(siteId.table)}"."${siteId.name}"`)}`);
}

/**
 * An `idempotency_records` row is of the site whose id is the SQL expression `site`: its `site_id`
 * (migration 0024), or for a record written before it, an API key's through its key and a signed-in person's
 * (`person:<user>:<site>`) by its suffix. The mover copies and deletes a site's records by it.
 */
export function idempotencyRecordOf(site: string): string {
  const r = "idempotency_records";
  return `(${r}.site_id = ${site} OR (${r}.site_id IS NULL AND (${r}.key_id IN (SELECT k.id FROM api_keys k WHERE k.site_id = ${site}) OR (${r}.key_id LIKE 'person:%' AND substr(${r}.key_id, -length(${site}) - 1) = ':' || ${site}))))`;
}

/** An idempotency record's site (as `idempotencyRecordOf` finds it) is not fenced in this group. */
export const idempotencyNotFenced: SQL = sql.raw(
  `NOT EXISTS (SELECT 1 FROM site_fences f WHERE f.purging = 0 AND ${idempotencyRecordOf("f.site_id")})`,
);
