/**
 * The query of the caller's site list (`GET /v1/sites`): the sites the caller's edge memberships reach
 * (the owning organization, a site role, an organization the site is shared with), filtered and in id
 * order key (keyset paging, as the operator console pages). Reads this service's own tables only: who
 * the caller is comes from the edge headers, never from identity's tables.
 */
import type { Computed } from "../../lib/rows";
import { ID_ORDER_KEY_SQL } from "../operator/id-order";
import type { SiteRow, SiteShare } from "./store";

export interface CallerSiteFilter {
  /** Organizations the caller belongs to (normalized ids). */
  orgIds: string[];
  /** Sites the caller holds a site role on (normalized ids). */
  siteIds: string[];
  /** Statuses to list (never `deleted`). */
  statuses: string[];
  /** Only sites owned by or shared with this organization. */
  orgId: string | null;
  /** Lower-cased literal term over name, slug and hosts (no LIKE pattern: `%` and `_` are plain). */
  q: string | null;
  /** Order key of the previous page's last row (exclusive); null for the first page. */
  afterKey: string | null;
  limit: number;
}

export type ListedSiteRow = SiteRow & { order_key: string; shares: SiteShare[] };

/**
 * One chunk of candidate sites in key order. The candidates are a UNION of id sets driven by the caller's
 * memberships (the organization index, the site ids, the shares), so the query never scans other
 * tenants' sites.
 */
export async function listCallerSites(db: D1Database, f: CallerSiteFilter): Promise<ListedSiteRow[]> {
  const orgs = JSON.stringify(f.orgIds);
  const where = [
    `id IN (SELECT id FROM sites WHERE org_id IN (SELECT value FROM json_each(?1))
            UNION SELECT value FROM json_each(?2)
            UNION SELECT site_id FROM site_shares WHERE org_id IN (SELECT value FROM json_each(?1)))`,
    "status IN (SELECT value FROM json_each(?3))",
  ];
  const params: (string | number | null)[] = [orgs, JSON.stringify(f.siteIds), JSON.stringify(f.statuses)];
  if (f.orgId !== null) {
    params.push(f.orgId);
    const n = params.length;
    where.push(`(org_id = ?${n} OR id IN (SELECT site_id FROM site_shares WHERE org_id = ?${n}))`);
  }
  if (f.q !== null) {
    params.push(f.q);
    const n = params.length;
    // instr, not LIKE: the term is literal and D1 refuses LIKE patterns over 50 bytes.
    where.push(
      `(instr(lower(name), ?${n}) > 0 OR instr(slug, ?${n}) > 0
        OR EXISTS (SELECT 1 FROM site_hosts h WHERE h.site_id = sites.id AND instr(h.host, ?${n}) > 0))`,
    );
  }
  if (f.afterKey !== null) {
    params.push(f.afterKey);
    where.push(`${ID_ORDER_KEY_SQL} > ?${params.length}`);
  }
  params.push(f.limit);
  const { results } = await db
    .prepare(
      `SELECT *, ${ID_ORDER_KEY_SQL} AS order_key,
         (SELECT json_group_array(json_object('org_id', sh.org_id, 'role', sh.role))
            FROM site_shares sh WHERE sh.site_id = sites.id) AS shares_json
       FROM sites WHERE ${where.join(" AND ")} ORDER BY order_key LIMIT ?${params.length}`,
    )
    .bind(...params)
    .all<SiteRow & Computed<{ order_key: string; shares_json: string }>>();
  return results.map(({ shares_json, ...row }) => ({
    ...row,
    shares: JSON.parse(shares_json) as SiteShare[],
  }));
}
