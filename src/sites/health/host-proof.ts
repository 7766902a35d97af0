/**
 * Serving a custom host follows its proof (issue 19; docs/decisions/host-proof.md). A host starts being
 * served the moment its proof is seen (check-dns, verify, the hourly sweep), and the caches of the site's
 * hosts and content's projection follow at once. The sweep re-checks every proved host: a proof no longer
 * seen is marked missing, the host stays served for `PROOF_GRACE_HOURS`, then stops (the host cache is
 * purged) and the site's health tells why. A lookup that fails decides nothing.
 */
import { bearerRefusal } from "../../lib/bearer";
import type { EdgeIdentity } from "../../lib/edge";
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import { sitePermissions } from "../site/permissions";
import { afterWrite } from "../site/service";
import { getSite, getVisibleSiteWithShares, type SiteRow } from "../site/store";
import type { HealthIssue } from "./cache";
import { type DomainProofState, type ProofEvidence, pendingIssue, proofState } from "./domain-proof";
import { normalizeHost } from "./domains";
import { endProof, type HostHolding, hostHolding, markHostVerified, markProofMissing } from "./domains-store";

/** How long a proved host stays served after its proof was last seen missing. */
export const PROOF_GRACE_HOURS = 72;
const GRACE_MS = PROOF_GRACE_HOURS * 3_600_000;

/** The site's serving changed (a host starts or stops being served): caches and content follow. */
async function servingChanged(env: SitesEnv, services: Services, siteId: string, reason: string) {
  const row = await getSite(env.DB, siteId);
  if (row) await afterWrite(env, services, row, row, [], reason);
}

/** `proofState`, and when the host starts being served, its caches and content's projection follow. */
export async function recordProof(
  env: SitesEnv,
  services: Services,
  site: { id: string },
  host: string,
  evidence: ProofEvidence,
  now = new Date().toISOString(),
): Promise<DomainProofState> {
  const { state, newlyVerified } = await proofState(env.DB, site, host, evidence, now);
  if (newlyVerified) {
    services.log.info("domain_proved", { site_id: site.id, host });
    await servingChanged(env, services, site.id, "domain_proved");
  }
  return state;
}

const until = (since: string) => new Date(Date.parse(since) + GRACE_MS).toISOString();

/**
 * The sweep's verdict on one held host's proof, with its health issue: proved (none), missing within the
 * grace period (`domain_proof_missing`, still served), missing past it (`domain_proof_lost`: served no
 * more, caches purged), or never proved (`domain_unverified`: pending, with the record to publish).
 */
export async function sweepProof(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  holding: HostHolding,
  evidence: ProofEvidence,
  now: Date,
): Promise<HealthIssue[]> {
  const at = now.toISOString();
  const { host } = holding;
  const state = await recordProof(env, services, site, host, evidence, at);
  if (state.verified && (state.txt_seen || evidence.dns)) return [];
  const record = { txt_name: state.txt_name, txt_value: state.txt_value };
  const unknown = evidence.txt === null || evidence.dns === null;
  if (state.verified && unknown) return [];
  if (state.verified) {
    const since = (await markProofMissing(env.DB, site.id, host, at)) ?? at;
    if (now.getTime() - Date.parse(since) < GRACE_MS) {
      return [
        {
          code: "domain_proof_missing",
          detail: `The proof of ${host} is no longer seen: publish the TXT record ${state.txt_name} again (or point ${host} at the platform without a wildcard) before ${until(since)}, when it stops being served.`,
          host,
          data: { ...record, missing_since: since, serving_until: until(since) },
        },
      ];
    }
    if (await endProof(env.DB, site.id, host, since, at)) {
      services.log.warn("domain_proof_lost", { site_id: site.id, host, missing_since: since });
      await servingChanged(env, services, site.id, "domain_proof_lost");
    }
    return [lostIssue(host, record, since, at)];
  }
  if (holding.proof_lost_at) return [lostIssue(host, record, null, holding.proof_lost_at)];
  return [pendingIssue(host, record)];
}

function lostIssue(host: string, record: Record<string, string>, since: string | null, lostAt: string) {
  return {
    code: "domain_proof_lost",
    detail: `${host} is no longer served: its proof (the TXT record ${record.txt_name}, or DNS pointing at the platform without a wildcard) disappeared${since ? ` on ${since}` : ""} and stayed missing for ${PROOF_GRACE_HOURS} hours. Publish the record again to serve it.`,
    host,
    data: { ...record, state: "pending", proof_lost_at: lostAt, ...(since ? { missing_since: since } : {}) },
  };
}

/** Development: `POST /api/v1/sites/__dev/prove-host` exists only where DEV_OUTBOX=true (`.dev.vars`). */
export function devRoutesEnabled(env: SitesEnv): boolean {
  return env.DEV_OUTBOX === "true";
}

/**
 * The route's first gate, before its body is read: 404 like a missing route anywhere DEV_OUTBOX is not
 * "true" (never deployed), then 401 without a person's identity (a staff Bearer verified by the edge).
 * A signed request without edge headers (a service caller) is no member either: proving a host serves
 * it to the world, so it takes a member's own session, also in development.
 */
export function refuseDevCaller(env: SitesEnv, identity: EdgeIdentity): void {
  if (!devRoutesEnabled(env)) fail("NOT_FOUND", "No such resource.");
  if (!identity.verified || identity.userId === null) {
    throw bearerRefusal("missing", "A valid Bearer access token of a member of the site is required.");
  }
}

const NO_HOLDER = "No site holds this host; set it as a primary domain or alias first.";

/**
 * Development only (no DNS locally): marks a held custom host proved, so it is served at once. The caller
 * must hold `settings` on the site that holds the host (as `domains/verify` asks): otherwise any tenant
 * could make another's host served. A host held by a site the caller cannot see answers exactly like a
 * host nobody holds (404), so the route never tells which hosts another tenant holds; a member without
 * `settings` gets 403.
 */
export async function devProveHost(
  env: SitesEnv,
  services: Services,
  identity: EdgeIdentity,
  rawHost: string,
): Promise<{ host: string; site_id: string; verified: true }> {
  refuseDevCaller(env, identity);
  const host = normalizeHost(rawHost);
  if (!host) fail("BAD_REQUEST", "host: must be a host name such as www.example.com");
  const holding = await hostHolding(env.DB, host);
  const found = holding ? await getVisibleSiteWithShares(env.DB, holding.site_id) : null;
  if (!holding || !found) fail("NOT_FOUND", NO_HOLDER);
  const permissions = sitePermissions(identity, found.site, found.shares);
  if (!permissions.has("read")) fail("NOT_FOUND", NO_HOLDER);
  if (!permissions.has("settings")) {
    fail("FORBIDDEN", 'Your role on this site does not allow this (needs "settings").');
  }
  if (await markHostVerified(env.DB, holding.site_id, host, new Date().toISOString())) {
    services.log.warn("domain_proved_by_dev_route", {
      site_id: holding.site_id,
      host,
      user_id: identity.userId,
    });
  }
  await servingChanged(env, services, holding.site_id, "domain_proved");
  return { host, site_id: holding.site_id, verified: true };
}
