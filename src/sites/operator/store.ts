/**
 * The operator console's queries: the cross-tenant list (filters and keyset in one WHERE clause over the
 * indexed order key), the compare-and-swap lifecycle write with its audit row, and the purge batch. The
 * purge's deletes go through drizzle's query builder; the rest stays raw SQL: the keyset listing over the
 * order-key expression, the plan-limited status update, and the audit rows (`INSERT … SELECT`, the
 * transition's chained on `changes()`).
 */

import { and, eq, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { siteAudit, siteHosts, siteShares, sites } from "../../../schema/sites";
import type { Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
import { type SiteRow, siteExists } from "../site/store";
import { ID_ORDER_KEY_SQL } from "./id-order";

export interface PlatformSiteFilter {
  /** Order key of the previous page's last row (exclusive); null for the first page. */
  afterKey: string | null;
  orgId: string | null;
  status: string | null;
  /** Lower-cased search term, matched literally (no LIKE pattern: `%` and `_` are plain characters). */
  q: string | null;
  limit: number;
}

export type KeyedSiteRow = SiteRow & { order_key: string };

/** One page of sites in key order, at most `limit` rows (the caller asks one more to know if more exist). */
export async function listPlatformSites(db: D1Database, filter: PlatformSiteFilter): Promise<KeyedSiteRow[]> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.afterKey !== null) {
    where.push(`${ID_ORDER_KEY_SQL} > ?`);
    params.push(filter.afterKey);
  }
  if (filter.orgId !== null) {
    where.push("org_id = ?");
    params.push(filter.orgId);
  }
  if (filter.status !== null) {
    where.push("status = ?");
    params.push(filter.status);
  }
  if (filter.q !== null) {
    // instr, not LIKE: the term is literal and D1 refuses LIKE patterns over 50 bytes.
    where.push("(instr(lower(slug), ?) > 0 OR instr(lower(primary_domain), ?) > 0)");
    params.push(filter.q, filter.q);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const { results } = await db
    .prepare(
      `SELECT *, ${ID_ORDER_KEY_SQL} AS order_key FROM sites ${clause} ORDER BY ${ID_ORDER_KEY_SQL} LIMIT ?`,
    )
    .bind(...params, filter.limit)
    .all<KeyedSiteRow>();
  return results;
}

export interface AuditActor {
  userId: string | null;
  capability: string;
}

export interface TransitionWrite {
  auditId: string;
  action: string;
  site: SiteRow;
  to: string;
  reason: string | null;
  hosts: string[];
  actor: AuditActor;
  at: string;
  /** Leaving `deleted` into a counted status: the organization's plan must still have room. */
  checkLimit: boolean;
  defaultSiteLimit: number;
}

/**
 * Moves the site from the status it was read in to `to` (compare-and-swap on that status) and, only when
 * the update landed, writes the audit row, in one batch. Returns whether it changed the site and the
 * status the site is in afterwards (null when it no longer exists).
 */
export async function writeTransition(
  db: D1Database,
  w: TransitionWrite,
): Promise<{ changed: boolean; status: string | null }> {
  const limit = w.checkLimit
    ? ` AND (SELECT COUNT(*) FROM sites AS s WHERE s.org_id = sites.org_id AND s.status != 'deleted')
          < COALESCE((SELECT site_limit FROM org_plans WHERE org_plans.org_id = sites.org_id), ?)`
    : "";
  const update = db
    .prepare(
      `UPDATE sites SET status = ?, previous_status = status, status_reason = ?, status_changed_at = ?,
         updated_at = ? WHERE id = ? AND status = ?${limit}`,
    )
    .bind(
      w.to,
      w.reason,
      w.at,
      w.at,
      w.site.id,
      w.site.status,
      ...(w.checkLimit ? [w.defaultSiteLimit] : []),
    );
  // changes() is the UPDATE's count: the batch runs its statements in order on one connection.
  const audit = db
    .prepare(
      `INSERT INTO site_audit (id, action, site_id, site_slug, org_id, from_status, to_status, hosts_json,
         actor_user_id, actor_capability, reason, created_at)
       SELECT ?, ?, id, slug, org_id, ?, status, ?, ?, ?, ?, ? FROM sites WHERE id = ? AND changes() = 1`,
    )
    .bind(
      w.auditId,
      w.action,
      w.site.status,
      JSON.stringify(w.hosts),
      w.actor.userId,
      w.actor.capability,
      w.reason,
      w.at,
      w.site.id,
    );
  const now = query<Row<typeof sites, "status">>(db, "SELECT status FROM sites WHERE id = ?", w.site.id);
  const [updated, , current] = await batch(db, [update, audit, now]);
  return { changed: updated.changes === 1, status: current.rows[0]?.status ?? null };
}

export interface PurgeWrite {
  auditId: string;
  site: SiteRow;
  hosts: string[];
  reason: string | null;
  actor: AuditActor;
  at: string;
}

/**
 * Removes the site with its host and share rows (slug and domains released) and writes the audit row, in
 * one batch, only if the site is still as read (status, owner, slug and domains): what is audited and
 * whose caches are invalidated is exactly what was removed. Returns false when the site changed or went.
 */
export async function purgeSiteRows(db: D1Database, w: PurgeWrite): Promise<boolean> {
  const asRead = "id = ? AND status = ? AND org_id = ? AND slug = ? AND primary_domain IS ? AND aliases = ?";
  const asReadParams = [
    w.site.id,
    w.site.status,
    w.site.org_id,
    w.site.slug,
    w.site.primary_domain,
    w.site.aliases,
  ];
  const asReadWhere = (): SQL | undefined =>
    and(
      eq(sites.id, w.site.id),
      eq(sites.status, w.site.status),
      eq(sites.org_id, w.site.org_id),
      eq(sites.slug, w.site.slug),
      sql`${sites.primary_domain} IS ${w.site.primary_domain}`,
      eq(sites.aliases, w.site.aliases),
    );
  const d = drizzle(db);
  const results = await batch(db, [
    db
      .prepare(
        `INSERT INTO site_audit (id, action, site_id, site_slug, org_id, from_status, to_status, hosts_json,
           actor_user_id, actor_capability, reason, created_at)
         SELECT ?, 'purge', id, slug, org_id, status, NULL, ?, ?, ?, ?, ? FROM sites WHERE ${asRead}`,
      )
      .bind(
        w.auditId,
        JSON.stringify(w.hosts),
        w.actor.userId,
        w.actor.capability,
        w.reason,
        w.at,
        ...asReadParams,
      ),
    // The foreign keys cascade too; explicit so the release never depends on the pragma.
    d.delete(siteHosts).where(and(eq(siteHosts.site_id, w.site.id), siteExists(db, asReadWhere()))),
    d.delete(siteShares).where(and(eq(siteShares.site_id, w.site.id), siteExists(db, asReadWhere()))),
    d.delete(sites).where(asReadWhere()),
  ]);
  return results[3].changes === 1;
}

/** One row of the operator audit trail that changes no site row (a move of its content: issue 38). */
export async function insertAuditRow(db: D1Database, row: typeof siteAudit.$inferInsert): Promise<void> {
  await drizzle(db).insert(siteAudit).values(row);
}
