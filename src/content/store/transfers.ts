import type { StalledConvergence } from "../../lib/rpc";

/**
 * The organization stamp of a site's content (posts, media, API keys: `org_id`, set at insert by the
 * triggers of migration 0008 from the `site_owner` view) and its convergence after a transfer.
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

/**
 * One batch: records the transfer as the site's newest unless a newer one (by `at`, then transfer id) is
 * already recorded, then restamps the site's content only if the recorded transfer is this one. So a
 * redelivered message changes nothing more, and an older message after a newer one changes nothing.
 */
export function restampStatements(db: D1Database, m: SiteTransferred, now: string): D1PreparedStatement[] {
  const isCurrent = "EXISTS (SELECT 1 FROM site_transfers WHERE site_id = ? AND transfer_id = ?)";
  return [
    db
      .prepare(
        `INSERT INTO site_transfers (site_id, transfer_id, from_org_id, to_org_id, transferred_at, applied_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (site_id) DO UPDATE SET transfer_id = excluded.transfer_id, from_org_id = excluded.from_org_id,
           to_org_id = excluded.to_org_id, transferred_at = excluded.transferred_at, applied_at = excluded.applied_at
         WHERE excluded.transferred_at > site_transfers.transferred_at
           OR (excluded.transferred_at = site_transfers.transferred_at AND excluded.transfer_id > site_transfers.transfer_id)`,
      )
      .bind(m.site_id, m.transfer_id, m.from_org_id, m.to_org_id, m.at, now),
    ...STAMPED_TABLES.map((table) =>
      db
        .prepare(`UPDATE ${table} SET org_id = ? WHERE site_id = ? AND org_id IS NOT ? AND ${isCurrent}`)
        .bind(m.to_org_id, m.site_id, m.to_org_id, m.site_id, m.transfer_id),
    ),
  ];
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
