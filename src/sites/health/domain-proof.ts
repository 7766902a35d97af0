/**
 * Domain ownership proof (beyond the spec; docs/decisions/sites.md; docs/decisions/host-proof.md). The
 * first site to name a custom host holds it, but only "unverified" until it is proved: the TXT record
 * `_platform-verify.<host>` carries that site's token, or the host's own DNS points at the platform while
 * a random sibling name does not (no wildcard). Only a proved host is served by host (`by-host`); an
 * unproved one answers like an unknown host. A site that proves a host by TXT takes it from an UNVERIFIED
 * holder (which then sees `domain_lost` in its health); a VERIFIED holder is never displaced (as Vercel
 * and Cloudflare for SaaS settle a contested hostname). The token is derived from the site id and the
 * host, so a refused claim needs no storage and every check computes the same value.
 */

import type { Logger } from "../../lib/log";
import type { ApiError } from "../../lib/problem";
import { problem } from "../errors";
import type { HealthCache, HealthIssue } from "./cache";
import { firstHostHeldElsewhere, hostHolding, markHostVerified } from "./domains-store";

export const PROOF_LABEL = "_platform-verify";
const TOKEN_PREFIX = "platform-verify=";

export function proofName(host: string): string {
  return `${PROOF_LABEL}.${host}`;
}

/** The TXT value that proves `host` for `siteId`: `platform-verify=<32 hex>` of SHA-256(site id, host). */
export async function proofValue(siteId: string, host: string): Promise<string> {
  const bytes = new TextEncoder().encode(`platform-domain-proof:v1\n${siteId}\n${host}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${TOKEN_PREFIX}${hex}`;
}

export interface DomainProofState {
  host: string;
  txt_name: string;
  txt_value: string;
  /** Whether `_platform-verify.<host>` carries this site's value; null when the TXT lookup failed. */
  txt_seen: boolean | null;
  /** Who holds the host now. */
  holder: "this_site" | "another_site" | "nobody";
  /** This site holds the host and its proof was seen. */
  verified: boolean;
}

/** What was read of a host: the TXT strings of its proof name and the DNS proof (null: lookup failed). */
export interface ProofEvidence {
  txt: string[] | null;
  /** Points at the platform while a random sibling does not; false when not checked. */
  dns: boolean | null;
}

/**
 * The proof state of `host` for `site` from what was read. Seeing a proof (TXT or DNS) of a host the site
 * holds records it as verified, and clears a missing mark (check-dns, the sweep and verify all do);
 * `newlyVerified` says the host starts being served now.
 */
export async function proofState(
  db: D1Database,
  site: { id: string },
  host: string,
  evidence: ProofEvidence,
  now: string,
): Promise<{ state: DomainProofState; newlyVerified: boolean }> {
  const value = await proofValue(site.id, host);
  const txtSeen = evidence.txt === null ? null : evidence.txt.includes(value);
  const holding = await hostHolding(db, host);
  const holder: DomainProofState["holder"] = !holding
    ? "nobody"
    : holding.site_id === site.id
      ? "this_site"
      : "another_site";
  let verified = holder === "this_site" && holding?.verified_at != null;
  let newlyVerified = false;
  const seen = txtSeen === true || evidence.dns === true;
  if (
    holder === "this_site" &&
    seen &&
    (!verified || holding?.proof_missing_since || holding?.proof_lost_at)
  ) {
    newlyVerified = await markHostVerified(db, site.id, host, now);
    verified = true;
  }
  const state = { host, txt_name: proofName(host), txt_value: value, txt_seen: txtSeen, holder, verified };
  return { state, newlyVerified };
}

/**
 * `DOMAIN_TAKEN` of a create or PATCH, with how to prove ownership: for a PATCH the TXT record of the
 * caller's own site; a site being created has no id yet, so it is told to create the site without the
 * host first.
 */
export async function domainTaken(db: D1Database, siteId: string | null, hosts: string[]): Promise<ApiError> {
  const host = await firstHostHeldElsewhere(db, hosts, siteId);
  const detail = "This domain is already used by another site.";
  if (!host) return problem("DOMAIN_TAKEN", detail);
  const details: Record<string, unknown> = { host, txt_name: proofName(host) };
  if (siteId) {
    details.txt_value = await proofValue(siteId, host);
    details.how = `Publish a TXT record ${proofName(host)} with the value txt_value, then POST /v1/sites/${siteId}/domains/verify {"host": "${host}"}. A holder that has not proven the domain loses it to you; a holder that has keeps it.`;
  } else {
    details.how = `Create the site without ${host}, then publish the TXT record named by GET /v1/sites/{id}/domains/check-dns?host=${host} and POST /v1/sites/{id}/domains/verify {"host": "${host}"}.`;
  }
  return problem("DOMAIN_TAKEN", { detail, details });
}

/** Runs a site write; a DOMAIN_TAKEN from it gets the proof details for the first host held elsewhere. */
export async function withDomainProof<T>(
  db: D1Database,
  siteId: string | null,
  hosts: string[],
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as ApiError)?.code !== "DOMAIN_TAKEN" || hosts.length === 0) throw err;
    throw await domainTaken(db, siteId, hosts);
  }
}

/** The health issue of a host held but not proved: pending, not served, with the exact record to publish. */
export function pendingIssue(host: string, record: { txt_name: string; txt_value: string }): HealthIssue {
  return {
    code: "domain_unverified",
    detail: `${host} is pending: it is not served until proved. Publish the TXT record ${record.txt_name} with the value ${record.txt_value} (or point ${host} at the platform without a wildcard); another site that proves it first takes it.`,
    host,
    data: { ...record, state: "pending" },
  };
}

/**
 * A host a write just gave the site is pending until proved: its issue is added to the cached health at
 * once (when the site was swept before; the next sweep reports it anyway). Best effort.
 */
export async function reportPendingHosts(
  health: HealthCache | null,
  log: Logger,
  siteId: string,
  hosts: string[],
): Promise<void> {
  for (const host of hosts) {
    const issue = pendingIssue(host, {
      txt_name: proofName(host),
      txt_value: await proofValue(siteId, host),
    });
    await health
      ?.addIssue(siteId, issue)
      .catch((err: unknown) => log.warn("health_issue_add_failed", { error: String(err) }));
  }
}
