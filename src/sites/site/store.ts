/**
 * Every query of the sites database. Multi-step writes are one D1 batch (a transaction). Queries go
 * through drizzle's query builder; raw SQL stays where the builder cannot say it: the plan-limited
 * `INSERT … SELECT` (count and insert in one statement), the other `INSERT … SELECT` guards, and the
 * site read with its shares aggregated as JSON in one statement.
 */
import { and, eq, exists, isNotNull, not, notInArray, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { orgPlans, siteHosts, siteShares, sites } from "../../../schema/sites";
import type { Computed, Row } from "../../lib/rows";
import { type BatchEntry, batch, inJsonEach } from "../../lib/sql";
import { fail } from "../errors";

export type SiteRow = typeof sites.$inferSelect;

/** Statuses a customer never sees: such a site answers like a missing one. */
export const HIDDEN_STATUSES = ["deleted", "archived"] as const;
const VISIBLE = "status NOT IN ('deleted', 'archived')";

/** The builder's `VISIBLE`: the site's status is not a hidden one. */
export function visibleSite(): SQL {
  return notInArray(sites.status, [...HIDDEN_STATUSES]);
}

/** `EXISTS (SELECT 1 FROM sites WHERE <where>)`: a write guarded by the site's row. */
export function siteExists(db: D1Database, where: SQL | undefined): SQL {
  return exists(drizzle(db).select({ one: sql`1` }).from(sites).where(where));
}

export interface HostEntry {
  host: string;
  kind: "primary" | "alias";
}

export function hostEntries(primary: string | null, aliases: string[]): HostEntry[] {
  return [
    ...(primary ? [{ host: primary, kind: "primary" as const }] : []),
    ...aliases.map((host) => ({ host, kind: "alias" as const })),
  ];
}

/** Maps a uniqueness violation to the spec's conflict code; anything else is rethrown as is. */
export function conflictFromError(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes("UNIQUE constraint failed: sites.slug")) {
    fail("SLUG_TAKEN", "This slug is already used by another site.");
  }
  if (message.includes("UNIQUE constraint failed: site_hosts.host")) {
    fail("DOMAIN_TAKEN", "This domain is already used by another site.");
  }
  throw err;
}

/** Readiness: the database answers a read of the service's main table (throws when it does not). */
export async function databaseAnswers(db: D1Database): Promise<void> {
  await drizzle(db).select({ one: sql`1` }).from(sites).limit(1).get();
}

export async function getSite(db: D1Database, id: string): Promise<SiteRow | null> {
  return (await drizzle(db).select().from(sites).where(eq(sites.id, id)).get()) ?? null;
}

export async function getVisibleSite(db: D1Database, id: string): Promise<SiteRow | null> {
  return (
    (await drizzle(db)
      .select()
      .from(sites)
      .where(and(eq(sites.id, id), visibleSite()))
      .get()) ?? null
  );
}

/** Visible sites among `ids` (one bound parameter however many ids: D1 allows 100 per query). */
export async function getVisibleSites(db: D1Database, ids: string[]): Promise<SiteRow[]> {
  return drizzle(db)
    .select()
    .from(sites)
    .where(and(inJsonEach(sites.id, ids), visibleSite()))
    .all();
}

/**
 * A visible site and the organizations it is shared with, in ONE statement (the by-id guard's read: every
 * request under `/v1/sites/{id}` needs both).
 */
export async function getVisibleSiteWithShares(
  db: D1Database,
  id: string,
): Promise<{ site: SiteRow; shares: SiteShare[] } | null> {
  const row = await db
    .prepare(
      `SELECT s.*, (SELECT json_group_array(json_object('org_id', sh.org_id, 'role', sh.role))
                      FROM site_shares sh WHERE sh.site_id = s.id) AS shares_json
       FROM sites s WHERE s.id = ? AND ${VISIBLE}`,
    )
    .bind(id)
    .first<SiteRow & Computed<{ shares_json: string }>>();
  if (!row) return null;
  const { shares_json, ...site } = row;
  return { site, shares: JSON.parse(shares_json) as SiteShare[] };
}

/** A site shared with another organization (an accepted transfer in mode "share"), in a site role. */
export type SiteShare = Row<typeof siteShares, "org_id" | "role">;

/** Organizations each site is shared with, and in which site role, by site id. */
export async function sharesOf(db: D1Database, siteIds: string[]): Promise<Map<string, SiteShare[]>> {
  const out = new Map<string, SiteShare[]>();
  if (siteIds.length === 0) return out;
  const results = await drizzle(db)
    .select({ site_id: siteShares.site_id, org_id: siteShares.org_id, role: siteShares.role })
    .from(siteShares)
    .where(inJsonEach(siteShares.site_id, siteIds))
    .all();
  for (const { site_id, org_id, role } of results) {
    out.set(site_id, [...(out.get(site_id) ?? []), { org_id, role }]);
  }
  return out;
}

/** The site a custom host is served for: only a PROVED host (`verified_at`) is served by host. */
export async function findSiteIdByProvedHost(db: D1Database, host: string): Promise<string | null> {
  const row = await drizzle(db)
    .select({ site_id: siteHosts.site_id })
    .from(siteHosts)
    .where(and(eq(siteHosts.host, host), isNotNull(siteHosts.verified_at)))
    .get();
  return row?.site_id ?? null;
}

export async function findSiteBySlug(db: D1Database, slug: string): Promise<SiteRow | null> {
  return (await drizzle(db).select().from(sites).where(eq(sites.slug, slug)).get()) ?? null;
}

/**
 * Creates a site if the organization's plan still has room. The count and the insert are ONE statement
 * (`INSERT … SELECT … WHERE count < limit`), and D1 runs statements one at a time, so concurrent creates
 * can never exceed the limit. Returns false when the plan is full. Slug and host conflicts surface as
 * SLUG_TAKEN / DOMAIN_TAKEN from the unique indexes, and the whole batch is rolled back.
 */
export async function insertSite(
  db: D1Database,
  site: SiteRow,
  hosts: HostEntry[],
  defaultSiteLimit: number,
): Promise<boolean> {
  const insert = db
    .prepare(
      `INSERT INTO sites (id, org_id, name, slug, primary_domain, aliases, default_language, languages, theme,
         status, status_reason, status_changed_at, previous_status, settings, created_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM sites WHERE org_id = ? AND status != 'deleted')
         < COALESCE((SELECT site_limit FROM org_plans WHERE org_id = ?), ?)`,
    )
    .bind(
      site.id,
      site.org_id,
      site.name,
      site.slug,
      site.primary_domain,
      site.aliases,
      site.default_language,
      site.languages,
      site.theme,
      site.status,
      site.status_reason,
      site.status_changed_at,
      site.previous_status,
      site.settings,
      site.created_at,
      site.updated_at,
      site.org_id,
      site.org_id,
      defaultSiteLimit,
    );
  const hostInserts = hosts.map((h) =>
    db
      .prepare(
        "INSERT INTO site_hosts (host, site_id, kind) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM sites WHERE id = ?)",
      )
      .bind(h.host, site.id, h.kind, site.id),
  );
  try {
    const [result] = await batch(db, [insert, ...hostInserts]);
    return (result?.changes ?? 0) === 1;
  } catch (err) {
    conflictFromError(err);
  }
}

export interface SiteUpdate {
  name?: string;
  slug?: string;
  primary_domain?: string | null;
  aliases?: string;
  default_language?: string;
  languages?: string;
  theme?: string | null;
  settings?: string;
}

/**
 * Applies present columns to a visible site and, when `hosts` is given, replaces its host rows, all in
 * one batch. Returns false when the site is no longer visible (deleted concurrently).
 */
export async function updateSite(
  db: D1Database,
  id: string,
  update: SiteUpdate,
  hosts: HostEntry[] | null,
  now: string,
  expectedSettings?: string | null,
): Promise<boolean> {
  const d = drizzle(db);
  // `expectedSettings`: a compare-and-swap on the settings read by the caller (a PATCH by someone without
  // the `code` permission was judged against that document; issue 19). The host statements then follow
  // only when the row holds the new settings, i.e. when the UPDATE happened.
  const swap = expectedSettings !== undefined;
  const statements: BatchEntry[] = [
    d
      .update(sites)
      .set({ ...update, updated_at: now })
      .where(
        and(
          eq(sites.id, id),
          visibleSite(),
          swap ? sql`${sites.settings} IS ${expectedSettings}` : undefined,
        ),
      ),
  ];
  if (hosts) {
    // Conditional like the UPDATE: a site deleted meanwhile keeps its hosts reserved (reversible delete).
    // Hosts the site keeps keep their row (and so their ownership proof, `verified_at`); a host held by
    // another site makes the INSERT fail on the primary key (DOMAIN_TAKEN).
    const newSettings = update.settings ?? null;
    const visibleWhere = () =>
      and(eq(sites.id, id), visibleSite(), swap ? sql`${sites.settings} IS ${newSettings}` : undefined);
    const swapSql = swap ? " AND settings IS ?" : "";
    const visible = `EXISTS (SELECT 1 FROM sites WHERE id = ? AND ${VISIBLE}${swapSql})`;
    const site = swap ? [id, newSettings] : [id];
    statements.push(
      d.delete(siteHosts).where(
        and(
          eq(siteHosts.site_id, id),
          not(
            inJsonEach(
              siteHosts.host,
              hosts.map((h) => h.host),
            ),
          ),
          siteExists(db, visibleWhere()),
        ),
      ),
    );
    for (const h of hosts) {
      statements.push(
        d
          .update(siteHosts)
          .set({ kind: h.kind })
          .where(and(eq(siteHosts.host, h.host), eq(siteHosts.site_id, id), siteExists(db, visibleWhere()))),
        db
          .prepare(
            `INSERT INTO site_hosts (host, site_id, kind) SELECT ?, ?, ?
             WHERE ${visible} AND NOT EXISTS (SELECT 1 FROM site_hosts WHERE host = ? AND site_id = ?)`,
          )
          .bind(h.host, id, h.kind, ...site, h.host, id),
      );
    }
  }
  try {
    const [result] = await batch(db, statements);
    return (result?.changes ?? 0) === 1;
  } catch (err) {
    conflictFromError(err);
  }
}

/**
 * Replaces the settings document only if it is still exactly `expected` (compare-and-swap), so a
 * background swap never overwrites a PATCH that landed in between.
 */
export async function swapSettings(
  db: D1Database,
  id: string,
  expected: string,
  next: string,
  now: string,
): Promise<boolean> {
  const result = await drizzle(db)
    .update(sites)
    .set({ settings: next, updated_at: now })
    .where(and(eq(sites.id, id), eq(sites.settings, expected), visibleSite()))
    .run();
  return result.meta.changes === 1;
}

/** Soft delete: reversible, every column kept; slug and hosts stay reserved. */
export async function softDeleteSite(db: D1Database, id: string, now: string): Promise<boolean> {
  const result = await drizzle(db)
    .update(sites)
    .set({
      // SET reads the row as it was: the status before this update.
      previous_status: sql`${sites.status}`,
      status: "deleted",
      status_reason: "deleted_by_customer",
      status_changed_at: now,
      updated_at: now,
    })
    .where(and(eq(sites.id, id), visibleSite()))
    .run();
  return result.meta.changes === 1;
}

export async function transferSite(
  db: D1Database,
  input: { site_id: string; from_org_id: string; to_org_id: string },
  now: string,
): Promise<boolean> {
  const d = drizzle(db);
  const [moved] = await drizzle(db).batch([
    d
      .update(sites)
      .set({ org_id: input.to_org_id, updated_at: now })
      .where(and(eq(sites.id, input.site_id), eq(sites.org_id, input.from_org_id))),
    // Every share of the site ends with the transfer: each was the origin's grant, which the buyer never
    // made, cannot see and has no operation to end (an agency the seller shared with would otherwise go
    // on editing the buyer's site), and the buyer no longer needs a share of its own site. Conditional on
    // the move, in the same batch: a refused transfer ends nothing.
    d
      .delete(siteShares)
      .where(
        and(
          eq(siteShares.site_id, input.site_id),
          siteExists(db, and(eq(sites.id, input.site_id), eq(sites.org_id, input.to_org_id))),
        ),
      ),
  ]);
  return moved.meta.changes === 1;
}

export async function shareSite(
  db: D1Database,
  input: { site_id: string; from_org_id: string; to_org_id: string; role: string },
  now: string,
): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO site_shares (site_id, org_id, role, created_at)
       SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sites WHERE id = ? AND org_id = ?)
       ON CONFLICT (site_id, org_id) DO UPDATE SET role = excluded.role`,
    )
    .bind(input.site_id, input.to_org_id, input.role, now, input.site_id, input.from_org_id)
    .run();
  return result.meta.changes === 1;
}

export async function setOrgSiteLimit(db: D1Database, orgId: string, siteLimit: number, now: string) {
  await drizzle(db)
    .insert(orgPlans)
    .values({ org_id: orgId, site_limit: siteLimit, updated_at: now })
    .onConflictDoUpdate({
      target: orgPlans.org_id,
      set: { site_limit: sql`excluded.site_limit`, updated_at: sql`excluded.updated_at` },
    })
    .run();
}
