/**
 * `POST /v1/sites/{id}/domains/verify` (beyond the spec): a site proves a custom host and takes it from
 * an unverified holder. The rules are in domain-proof.ts.
 */
import type { Services } from "../core/app-env";
import { LOST, untilSwapped } from "../core/compare-and-swap";
import { fail } from "../errors";
import { aliasesOf, type SiteRecord, siteRecordOf } from "../site/record";
import { afterWrite } from "../site/service";
import { getSite, type SiteRow } from "../site/store";
import { proofEvidence } from "./dns-check";
import { type DomainProofState, domainTaken } from "./domain-proof";
import { isPlatformHost, MAX_ALIASES, normalizeHost } from "./domains";
import { hostHolding, moveHost } from "./domains-store";
import { recordProof } from "./host-proof";

export interface VerifyResult extends DomainProofState {
  /** The host was attached to this site by this call (it was free or held unverified by another site). */
  attached: boolean;
  site: SiteRecord;
}

function parseClaimHost(raw: string, platformDomain: string): string {
  const host = normalizeHost(raw);
  if (!host)
    fail("BAD_REQUEST", "host: must be a host name such as www.example.com (no scheme, port or path)");
  if (isPlatformHost(host, platformDomain)) {
    fail("BAD_REQUEST", `host: hosts under ${platformDomain} are reserved for the platform`);
  }
  return host;
}

/** The claimant's domains with `host` added: primary when it has none, else an alias (at most 20). */
function withHost(site: SiteRow, host: string) {
  if (site.primary_domain === null) {
    return { kind: "primary" as const, primary_domain: host, aliases: site.aliases };
  }
  const aliases = aliasesOf(site);
  if (aliases.length >= MAX_ALIASES) fail("BAD_REQUEST", `aliases: at most ${MAX_ALIASES}; remove one first`);
  return {
    kind: "alias" as const,
    primary_domain: site.primary_domain,
    aliases: JSON.stringify([...aliases, host]),
  };
}

function withoutHost(site: SiteRow, host: string) {
  return {
    primary_domain: site.primary_domain === host ? null : site.primary_domain,
    aliases: JSON.stringify(aliasesOf(site).filter((a) => a !== host)),
  };
}

const MOVE_ATTEMPTS = 3;

/**
 * `POST /v1/sites/{id}/domains/verify`: reads the proof TXT now. Proven and free, or held unverified by
 * another site: the host moves to this site, verified, in one batch, and both sites' caches and content
 * projections follow (`afterWrite`). Held verified by another site: 409 DOMAIN_TAKEN. Not proven: the
 * state is answered (nothing changes).
 */
export async function verifyDomain(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  rawHost: string,
): Promise<VerifyResult> {
  const host = parseClaimHost(rawHost, env.PLATFORM_DOMAIN);
  const evidence = await proofEvidence(env, services, site, host);
  let current = site;
  const conflict = "The domains changed concurrently on every attempt; try again.";
  return untilSwapped(MOVE_ATTEMPTS, conflict, async () => {
    const now = new Date().toISOString();
    const state = await recordProof(env, services, current, host, evidence, now);
    // Only the TXT record names THIS site: the DNS proof may serve a held host, never take one.
    if (state.holder === "this_site" || !state.txt_seen) {
      return { ...state, attached: false, site: await siteRecordOf(env.DB, current, env.PLATFORM_DOMAIN) };
    }
    const holding = await hostHolding(env.DB, host);
    if (holding?.verified_at) {
      throw await domainTaken(env.DB, current.id, [host]);
    }
    const holder = holding ? await getSite(env.DB, holding.site_id) : null;
    const claim = withHost(current, host);
    const moved = await moveHost(
      env.DB,
      {
        host,
        kind: claim.kind,
        claimant: { id: current.id, updated_at: current.updated_at, ...claim },
        holder: holder
          ? { id: holder.id, updated_at: holder.updated_at, ...withoutHost(holder, host) }
          : null,
      },
      now,
    );
    const after = await getSite(env.DB, current.id);
    if (!after) fail("NOT_FOUND", "Site not found.");
    if (moved) {
      await afterWrite(env, services, current, after, [], "domain_verified");
      const holderAfter = holder ? await getSite(env.DB, holder.id) : null;
      if (holder && holderAfter) {
        await afterWrite(env, services, holder, holderAfter, [], "domain_lost");
        services.log.warn("domain_lost", { site_id: holder.id, host, taken_by_site_id: current.id });
        await services.health
          ?.addIssue(holder.id, {
            code: "domain_lost",
            detail: `${host} was taken by a site that proved owning it.`,
            host,
            data: { lost_at: now },
          })
          .catch((err: unknown) => services.log.warn("health_issue_add_failed", { error: String(err) }));
      }
      return {
        ...state,
        holder: "this_site",
        verified: true,
        attached: true,
        site: await siteRecordOf(env.DB, after, env.PLATFORM_DOMAIN),
      };
    }
    current = after;
    return LOST;
  });
}
