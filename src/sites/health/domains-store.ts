/**
 * SQL of the domain ownership proof (migration 0005): who holds a host and whether verified, the move of
 * a host to a site that proved it (one batch), and the hosts sites lost. Queries go through drizzle's
 * query builder, except the move's two `INSERT … SELECT` guards (the host taken while nobody holds it,
 * the loss recorded only where the move happened).
 */

import { and, eq, exists, gte, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { domainLosses, siteHosts, sites } from "../../../schema/sites";
import type { Row } from "../../lib/rows";
import { type BatchEntry, batch, inJsonEach } from "../../lib/sql";
import { siteExists, visibleSite } from "../site/store";

export type HostHolding = Row<
  typeof siteHosts,
  "host" | "site_id" | "kind" | "verified_at" | "proof_missing_since" | "proof_lost_at"
>;

const HOLDING_COLUMNS = {
  host: siteHosts.host,
  site_id: siteHosts.site_id,
  kind: siteHosts.kind,
  verified_at: siteHosts.verified_at,
  proof_missing_since: siteHosts.proof_missing_since,
  proof_lost_at: siteHosts.proof_lost_at,
};

export async function hostHolding(db: D1Database, host: string): Promise<HostHolding | null> {
  return (
    (await drizzle(db).select(HOLDING_COLUMNS).from(siteHosts).where(eq(siteHosts.host, host)).get()) ?? null
  );
}

/** The host rows of the given sites (one bound parameter however many ids). */
export async function holdingsOf(db: D1Database, siteIds: string[]): Promise<HostHolding[]> {
  if (siteIds.length === 0) return [];
  return drizzle(db)
    .select(HOLDING_COLUMNS)
    .from(siteHosts)
    .where(inJsonEach(siteHosts.site_id, siteIds))
    .orderBy(siteHosts.host)
    .all();
}

/** The first of `hosts` held by a site other than `siteId` (null `siteId`: a site being created). */
export async function firstHostHeldElsewhere(
  db: D1Database,
  hosts: string[],
  siteId: string | null,
): Promise<string | null> {
  const row = await drizzle(db)
    .select({ host: siteHosts.host })
    .from(siteHosts)
    .where(and(inJsonEach(siteHosts.host, hosts), sql`${siteHosts.site_id} IS NOT ${siteId}`))
    .orderBy(siteHosts.host)
    .limit(1)
    .get();
  return row?.host ?? null;
}

/** The custom hosts of a site that are proved, so served (primary and aliases alike). */
export async function provedHostsOf(db: D1Database, siteId: string): Promise<Set<string>> {
  const results = await drizzle(db)
    .select({ host: siteHosts.host })
    .from(siteHosts)
    .where(and(eq(siteHosts.site_id, siteId), isNotNull(siteHosts.verified_at)))
    .all();
  return new Set(results.map((r) => r.host));
}

/** The proved hosts of several sites, by site id (one bound parameter however many ids). */
export async function provedHostsOfSites(
  db: D1Database,
  siteIds: string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const h of await holdingsOf(db, siteIds)) {
    if (h.verified_at === null) continue;
    out.set(h.site_id, (out.get(h.site_id) ?? new Set()).add(h.host));
  }
  return out;
}

/**
 * Records that the proof of a host the site holds was seen: verified from now on (the first sighting's
 * time stays) and any missing or lost mark cleared. Returns true when the host was NOT verified before
 * (it starts being served now).
 */
export async function markHostVerified(
  db: D1Database,
  siteId: string,
  host: string,
  now: string,
): Promise<boolean> {
  const d = drizzle(db);
  const held = () => and(eq(siteHosts.host, host), eq(siteHosts.site_id, siteId));
  const [first] = await drizzle(db).batch([
    d
      .update(siteHosts)
      .set({ verified_at: now })
      .where(and(held(), isNull(siteHosts.verified_at))),
    d
      .update(siteHosts)
      .set({ proof_missing_since: null, proof_lost_at: null })
      .where(and(held(), or(isNotNull(siteHosts.proof_missing_since), isNotNull(siteHosts.proof_lost_at)))),
  ]);
  return first.meta.changes === 1;
}

/** A proved host whose proof was not seen: the first miss's time is kept. Returns the time in force. */
export async function markProofMissing(
  db: D1Database,
  siteId: string,
  host: string,
  now: string,
): Promise<string | null> {
  const row = await drizzle(db)
    .update(siteHosts)
    .set({ proof_missing_since: sql`COALESCE(${siteHosts.proof_missing_since}, ${now})` })
    .where(and(eq(siteHosts.host, host), eq(siteHosts.site_id, siteId), isNotNull(siteHosts.verified_at)))
    .returning({ proof_missing_since: siteHosts.proof_missing_since })
    .get();
  return row?.proof_missing_since ?? null;
}

/**
 * Ends the proof of a host whose proof stayed missing past the grace period: not served any more, and
 * `proof_lost_at` says why. Conditional on the miss read, so a proof seen meanwhile wins. Returns whether
 * it ended.
 */
export async function endProof(
  db: D1Database,
  siteId: string,
  host: string,
  missingSince: string,
  now: string,
): Promise<boolean> {
  const result = await drizzle(db)
    .update(siteHosts)
    .set({ verified_at: null, proof_missing_since: null, proof_lost_at: now })
    .where(
      and(
        eq(siteHosts.host, host),
        eq(siteHosts.site_id, siteId),
        isNotNull(siteHosts.verified_at),
        eq(siteHosts.proof_missing_since, missingSince),
      ),
    )
    .run();
  return result.meta.changes === 1;
}

interface SiteDomains {
  id: string;
  /** `updated_at` as read: the move applies only to the record the decision was taken on. */
  updated_at: string;
  primary_domain: string | null;
  aliases: string;
}

export interface HostMove {
  host: string;
  kind: "primary" | "alias";
  /** The claimant's domains AFTER the move (`updated_at` as read). */
  claimant: SiteDomains;
  /** The unverified holder's domains AFTER the move (`updated_at` as read); null when the host is free. */
  holder: SiteDomains | null;
}

/**
 * Moves `host` to the claimant, verified, in ONE batch (a transaction). The first statement decides:
 * it takes the host row only while the holder still holds it UNVERIFIED (or inserts it while nobody
 * holds it: a concurrent taker makes the insert fail on the primary key) and both site records are
 * still the ones read; every later statement applies only if that row now names the claimant with this
 * move's time. So two concurrent verifies move the host once, and a PATCH in between makes the move
 * change nothing (the caller reads again). Returns whether the host moved.
 */
export async function moveHost(db: D1Database, move: HostMove, now: string): Promise<boolean> {
  const { host, kind, claimant, holder } = move;
  const d = drizzle(db);
  const claimantAsRead = `EXISTS (SELECT 1 FROM sites WHERE id = ? AND updated_at = ? AND status NOT IN ('deleted', 'archived'))`;
  const claimantAsReadWhere = () =>
    siteExists(db, and(eq(sites.id, claimant.id), eq(sites.updated_at, claimant.updated_at), visibleSite()));
  const decide: BatchEntry = holder
    ? d
        .update(siteHosts)
        .set({ site_id: claimant.id, kind, verified_at: now })
        .where(
          and(
            eq(siteHosts.host, host),
            eq(siteHosts.site_id, holder.id),
            isNull(siteHosts.verified_at),
            siteExists(db, and(eq(sites.id, holder.id), eq(sites.updated_at, holder.updated_at))),
            claimantAsReadWhere(),
          ),
        )
    : db
        .prepare(
          `INSERT INTO site_hosts (host, site_id, kind, verified_at) SELECT ?, ?, ?, ? WHERE ${claimantAsRead}`,
        )
        .bind(host, claimant.id, kind, now, claimant.id, claimant.updated_at);
  const moved = "EXISTS (SELECT 1 FROM site_hosts WHERE host = ? AND site_id = ? AND verified_at = ?)";
  const movedWhere = (): SQL =>
    exists(
      d
        .select({ one: sql`1` })
        .from(siteHosts)
        .where(
          and(eq(siteHosts.host, host), eq(siteHosts.site_id, claimant.id), eq(siteHosts.verified_at, now)),
        ),
    );
  const setDomains = (site: SiteDomains) =>
    d
      .update(sites)
      .set({ primary_domain: site.primary_domain, aliases: site.aliases, updated_at: now })
      .where(and(eq(sites.id, site.id), eq(sites.updated_at, site.updated_at), movedWhere()));
  const statements: BatchEntry[] = [
    decide,
    setDomains(claimant),
    d
      .delete(domainLosses)
      .where(and(eq(domainLosses.site_id, claimant.id), eq(domainLosses.host, host), movedWhere())),
  ];
  if (holder) {
    statements.push(
      setDomains(holder),
      db
        .prepare(
          `INSERT INTO domain_losses (site_id, host, taken_by_site_id, lost_at) SELECT ?, ?, ?, ? WHERE ${moved}
           ON CONFLICT (site_id, host) DO UPDATE SET taken_by_site_id = excluded.taken_by_site_id, lost_at = excluded.lost_at`,
        )
        .bind(holder.id, host, claimant.id, now, host, claimant.id, now),
    );
  }
  try {
    const [first] = await batch(db, statements);
    return (first?.changes ?? 0) === 1;
  } catch (err) {
    // The host was taken between the read and the insert: not moved (the caller reads again).
    if (String(err).includes("UNIQUE constraint failed: site_hosts.host")) return false;
    throw err;
  }
}

export type DomainLoss = Row<typeof domainLosses, "site_id" | "host" | "lost_at">;

/** Hosts the given sites lost since `since` (older losses are no longer reported). */
export async function lossesOf(db: D1Database, siteIds: string[], since: string): Promise<DomainLoss[]> {
  if (siteIds.length === 0) return [];
  return drizzle(db)
    .select({ site_id: domainLosses.site_id, host: domainLosses.host, lost_at: domainLosses.lost_at })
    .from(domainLosses)
    .where(and(inJsonEach(domainLosses.site_id, siteIds), gte(domainLosses.lost_at, since)))
    .orderBy(domainLosses.host)
    .all();
}

export async function pruneLosses(db: D1Database, before: string): Promise<void> {
  await drizzle(db).delete(domainLosses).where(lt(domainLosses.lost_at, before)).run();
}
