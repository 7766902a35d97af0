/**
 * SQL of the domain ownership proof (migration 0005): who holds a host and whether verified, the move of
 * a host to a site that proved it (one batch), and the hosts sites lost.
 */

import type { domainLosses, siteHosts } from "../../../schema/sites";
import type { Row } from "../../lib/rows";
import { batch } from "../../lib/sql";

export type HostHolding = Row<
  typeof siteHosts,
  "host" | "site_id" | "kind" | "verified_at" | "proof_missing_since" | "proof_lost_at"
>;

const HOLDING_COLUMNS = "host, site_id, kind, verified_at, proof_missing_since, proof_lost_at";

export async function hostHolding(db: D1Database, host: string): Promise<HostHolding | null> {
  return db
    .prepare(`SELECT ${HOLDING_COLUMNS} FROM site_hosts WHERE host = ?`)
    .bind(host)
    .first<HostHolding>();
}

/** The host rows of the given sites (one bound parameter however many ids). */
export async function holdingsOf(db: D1Database, siteIds: string[]): Promise<HostHolding[]> {
  if (siteIds.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT ${HOLDING_COLUMNS} FROM site_hosts
       WHERE site_id IN (SELECT value FROM json_each(?)) ORDER BY host`,
    )
    .bind(JSON.stringify(siteIds))
    .all<HostHolding>();
  return results;
}

/** The first of `hosts` held by a site other than `siteId` (null `siteId`: a site being created). */
export async function firstHostHeldElsewhere(
  db: D1Database,
  hosts: string[],
  siteId: string | null,
): Promise<string | null> {
  const row = await db
    .prepare(
      `SELECT host FROM site_hosts WHERE host IN (SELECT value FROM json_each(?)) AND site_id IS NOT ?
       ORDER BY host LIMIT 1`,
    )
    .bind(JSON.stringify(hosts), siteId)
    .first<Row<typeof siteHosts, "host">>();
  return row?.host ?? null;
}

/** The custom hosts of a site that are proved, so served (primary and aliases alike). */
export async function provedHostsOf(db: D1Database, siteId: string): Promise<Set<string>> {
  const { results } = await db
    .prepare("SELECT host FROM site_hosts WHERE site_id = ? AND verified_at IS NOT NULL")
    .bind(siteId)
    .all<Row<typeof siteHosts, "host">>();
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
  const [first] = await batch(db, [
    db
      .prepare("UPDATE site_hosts SET verified_at = ? WHERE host = ? AND site_id = ? AND verified_at IS NULL")
      .bind(now, host, siteId),
    db
      .prepare(
        `UPDATE site_hosts SET proof_missing_since = NULL, proof_lost_at = NULL
         WHERE host = ? AND site_id = ? AND (proof_missing_since IS NOT NULL OR proof_lost_at IS NOT NULL)`,
      )
      .bind(host, siteId),
  ]);
  return (first?.changes ?? 0) === 1;
}

/** A proved host whose proof was not seen: the first miss's time is kept. Returns the time in force. */
export async function markProofMissing(
  db: D1Database,
  siteId: string,
  host: string,
  now: string,
): Promise<string | null> {
  const row = await db
    .prepare(
      `UPDATE site_hosts SET proof_missing_since = COALESCE(proof_missing_since, ?)
       WHERE host = ? AND site_id = ? AND verified_at IS NOT NULL RETURNING proof_missing_since`,
    )
    .bind(now, host, siteId)
    .first<Row<typeof siteHosts, "proof_missing_since">>();
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
  const result = await db
    .prepare(
      `UPDATE site_hosts SET verified_at = NULL, proof_missing_since = NULL, proof_lost_at = ?
       WHERE host = ? AND site_id = ? AND verified_at IS NOT NULL AND proof_missing_since = ?`,
    )
    .bind(now, host, siteId, missingSince)
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
  const claimantAsRead = `EXISTS (SELECT 1 FROM sites WHERE id = ? AND updated_at = ? AND status NOT IN ('deleted', 'archived'))`;
  const decide = holder
    ? db
        .prepare(
          `UPDATE site_hosts SET site_id = ?, kind = ?, verified_at = ?
           WHERE host = ? AND site_id = ? AND verified_at IS NULL
             AND EXISTS (SELECT 1 FROM sites WHERE id = ? AND updated_at = ?) AND ${claimantAsRead}`,
        )
        .bind(
          claimant.id,
          kind,
          now,
          host,
          holder.id,
          holder.id,
          holder.updated_at,
          claimant.id,
          claimant.updated_at,
        )
    : db
        .prepare(
          `INSERT INTO site_hosts (host, site_id, kind, verified_at) SELECT ?, ?, ?, ? WHERE ${claimantAsRead}`,
        )
        .bind(host, claimant.id, kind, now, claimant.id, claimant.updated_at);
  const moved = "EXISTS (SELECT 1 FROM site_hosts WHERE host = ? AND site_id = ? AND verified_at = ?)";
  const setDomains = (site: SiteDomains) =>
    db
      .prepare(
        `UPDATE sites SET primary_domain = ?, aliases = ?, updated_at = ? WHERE id = ? AND updated_at = ? AND ${moved}`,
      )
      .bind(site.primary_domain, site.aliases, now, site.id, site.updated_at, host, claimant.id, now);
  const statements = [
    decide,
    setDomains(claimant),
    db
      .prepare(`DELETE FROM domain_losses WHERE site_id = ? AND host = ? AND ${moved}`)
      .bind(claimant.id, host, host, claimant.id, now),
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
  const { results } = await db
    .prepare(
      `SELECT site_id, host, lost_at FROM domain_losses
       WHERE site_id IN (SELECT value FROM json_each(?)) AND lost_at >= ? ORDER BY host`,
    )
    .bind(JSON.stringify(siteIds), since)
    .all<DomainLoss>();
  return results;
}

export async function pruneLosses(db: D1Database, before: string): Promise<void> {
  await db.prepare("DELETE FROM domain_losses WHERE lost_at < ?").bind(before).run();
}
