import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { apiKeys, media, posts, siteTransfers, webhooks } from "../../../schema/content";
import type { Computed } from "../../lib/rows";
import type { SiteIntegrations, StalledConvergence } from "../../lib/rpc";
import { type BatchEntry, batch } from "../../lib/sql";
import { endStalePreviewsStatement } from "../preview/store";

/**
 * The organization stamp of a site's content (posts, media, API keys: `org_id`, set at insert by the
 * triggers of migration 0008 from the `site_owner` view) and its convergence after a transfer. The
 * transfer's writes go through drizzle's query builder; the reads of the `site_owner` view (an SQL view
 * the drizzle schema does not declare) and the counts per id of a `json_each` list stay raw SQL.
 */

/** `site.transferred` as identity queues it when a transfer is accepted (mode `transfer` moves the owner). */
export interface SiteTransferred {
  transfer_id: string;
  site_id: string;
  from_org_id: string;
  to_org_id: string;
  at: string;
}

const STAMPED_TABLES = ["posts", "media", "api_keys"] as const;

/** Applies a transfer message: `restampStatements` in one batch. */
export async function restamp(db: D1Database, m: SiteTransferred, now: string): Promise<void> {
  await batch(db, restampStatements(db, m, now));
}

/**
 * One batch: records the transfer as the site's newest unless a newer one (by `at`, then transfer id) is
 * already recorded, then restamps the site's content only if the recorded transfer is this one. So a
 * redelivered message changes nothing more, and an older message after a newer one changes nothing.
 * The preview links of any organization but the site's owner end in the same batch.
 */
function restampStatements(db: D1Database, m: SiteTransferred, now: string): BatchEntry[] {
  const d = drizzle(db);
  const t = siteTransfers;
  // The recorded transfer of the site is this one (the upsert below kept it).
  const isCurrent = sql`EXISTS (SELECT 1 FROM ${t} WHERE ${and(eq(t.site_id, m.site_id), eq(t.transfer_id, m.transfer_id))})`;
  /** Rows of `table` of the site stamped for another organization than the new owner, if this transfer is current. */
  const stale = (table: { site_id: SQLiteColumn; org_id: SQLiteColumn }) =>
    and(eq(table.site_id, m.site_id), sql`${table.org_id} IS NOT ${m.to_org_id}`);
  return [
    d
      .insert(t)
      .values({
        site_id: m.site_id,
        transfer_id: m.transfer_id,
        from_org_id: m.from_org_id,
        to_org_id: m.to_org_id,
        transferred_at: m.at,
        applied_at: now,
      })
      .onConflictDoUpdate({
        target: t.site_id,
        set: {
          transfer_id: sql`excluded.transfer_id`,
          from_org_id: sql`excluded.from_org_id`,
          to_org_id: sql`excluded.to_org_id`,
          transferred_at: sql`excluded.transferred_at`,
          applied_at: sql`excluded.applied_at`,
        },
        // A newer transfer (by time, then transfer id) replaces the recorded one; an older one changes nothing.
        setWhere: sql`excluded.transferred_at > ${t.transferred_at}
          OR (excluded.transferred_at = ${t.transferred_at} AND excluded.transfer_id > ${t.transfer_id})`,
      }),
    d
      .update(posts)
      .set({ org_id: m.to_org_id })
      .where(and(stale(posts), isCurrent)),
    d
      .update(media)
      .set({ org_id: m.to_org_id })
      .where(and(stale(media), isCurrent)),
    // The origin's integrations end here: restamped, and carried over (suspended) until the new owner keeps
    // them (`keepCarriedOver`). Only those stamped for another organization: what the new owner made
    // since it took over (stamped for it at insert) goes on.
    d
      .update(apiKeys)
      .set({ org_id: m.to_org_id, carried_over_at: m.at, carried_over_from: sql`${apiKeys.org_id}` })
      .where(and(stale(apiKeys), isNull(apiKeys.revoked_at), isCurrent)),
    d
      .update(webhooks)
      .set({ org_id: m.to_org_id, carried_over_at: m.at, carried_over_from: sql`${webhooks.org_id}` })
      .where(and(stale(webhooks), isCurrent)),
    // A revoked key only follows the stamp (it is never carried over: nothing to keep).
    d
      .update(apiKeys)
      .set({ org_id: m.to_org_id })
      .where(and(stale(apiKeys), isCurrent)),
    // The origin's preview links end for good (the buyer's drafts never reach them, even if the buyer
    // keeps the key that made one, or the site comes back): not restamped, never carried over.
    endStalePreviewsStatement(db, m.site_id, now),
  ];
}

/** A carried-over integration as listed (`CarriedOver` of the OpenAPI document); null when active. */
export function carriedOver(row: { carried_over_at: string | null; carried_over_from: string | null }) {
  return row.carried_over_at === null
    ? null
    : { from_org_id: row.carried_over_from ?? "", at: row.carried_over_at };
}

/** The integrations a transfer carries over: suspended until an administrator of the new owner keeps them. */
const CARRIED_TABLES = ["api_keys", "webhooks"] as const;

/**
 * Keeps one carried-over key or webhook of the site (the new owner's explicit choice): active again,
 * stamped for the site's current owner. False when the site has no such carried-over row.
 */
export async function keepCarriedOver(
  db: D1Database,
  table: (typeof CARRIED_TABLES)[number],
  siteId: string,
  id: string,
): Promise<boolean> {
  const t = table === "api_keys" ? apiKeys : webhooks;
  const result = await drizzle(db)
    .update(t)
    .set({
      carried_over_at: null,
      carried_over_from: null,
      org_id: sql`(SELECT org_id FROM site_owner WHERE site_id = ${siteId})`,
    })
    .where(
      and(
        eq(t.id, id),
        eq(t.site_id, siteId),
        isNotNull(t.carried_over_at),
        t === apiKeys ? isNull(apiKeys.revoked_at) : undefined,
      ),
    )
    .run();
  return result.meta.changes > 0;
}

/**
 * Who owns the site as content knows it (the newer of the projection and the applied transfer), and when
 * content learned of the last change of owner (`changed_at`, null when it never changed).
 */
export function siteOwner(db: D1Database, siteId: string) {
  return db
    .prepare(
      `SELECT o.org_id, NULLIF(max(coalesce(s.org_changed_at, ''), coalesce(t.applied_at, '')), '') AS changed_at
       FROM site_owner o JOIN sites s ON s.id = o.site_id LEFT JOIN site_transfers t ON t.site_id = o.site_id
       WHERE o.site_id = ?`,
    )
    .bind(siteId)
    .first<Computed<{ org_id: string; changed_at: string | null }>>();
}

/**
 * Per site (up to 100): its live API keys (not revoked, not carried over) and webhooks (not carried over),
 * which accepting a transfer of it would carry over.
 */
export const SITE_INTEGRATIONS_MAX_SITES = 100;

export async function siteIntegrationCounts(db: D1Database, siteIds: string[]): Promise<SiteIntegrations[]> {
  const ids = [...new Set(siteIds.filter((id) => typeof id === "string"))].slice(
    0,
    SITE_INTEGRATIONS_MAX_SITES,
  );
  if (ids.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT s.value AS site_id,
         (SELECT count(*) FROM api_keys k WHERE k.site_id = s.value AND k.revoked_at IS NULL AND k.carried_over_at IS NULL) AS api_keys,
         (SELECT count(*) FROM webhooks w WHERE w.site_id = s.value AND w.carried_over_at IS NULL) AS webhooks
       FROM json_each(?) s`,
    )
    .bind(JSON.stringify(ids))
    .all<SiteIntegrations>();
  const bySite = new Map(results.map((r) => [r.site_id, r]));
  return siteIds.map((id) => bySite.get(id) ?? { site_id: id, api_keys: 0, webhooks: 0 });
}

const staleCount = (table: string) =>
  `(SELECT count(*) FROM ${table} WHERE site_id = o.site_id AND org_id IS NOT o.org_id)`;

/** Live sites whose owner changed before `before` and whose content is not all stamped for it yet. */
export async function stalledConvergence(
  db: D1Database,
  before: string,
  limit: number,
): Promise<StalledConvergence[]> {
  const { results } = await db
    .prepare(
      `SELECT o.site_id, o.org_id AS expected_org_id, o.since,
         ${staleCount("posts")} AS stale_posts, ${staleCount("media")} AS stale_media,
         ${staleCount("api_keys")} AS stale_keys
       FROM site_owner o JOIN sites s ON s.id = o.site_id
       WHERE s.status NOT IN ('deleted') AND o.since < ?
         AND (${STAMPED_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE site_id = o.site_id AND org_id IS NOT o.org_id)`).join(" OR ")})
       ORDER BY o.since LIMIT ?`,
    )
    .bind(before, limit)
    .all<StalledConvergence>();
  return results;
}
