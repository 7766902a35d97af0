/**
 * Whether a host points at the platform, decided by ONE function (`checkHostDns`) for the domain check
 * route and the hourly health sweep, so their verdicts agree. Accepted forms: A records of the host
 * itself all among the fleet's IPv4 addresses (`apex_a`), AAAA records of the host itself all among its
 * IPv6 addresses (`apex_aaaa`), or a CNAME of the host to `<slug>.<PLATFORM_DOMAIN>` (`cname`). A record
 * pointing anywhere else (round-robin to a foreign address, an AAAA beside a fleet A) sends part of the
 * visitors elsewhere, so it is not pointing. The TXT record of the ownership proof is read by the same
 * call (src/sites/health/domain-proof.ts), and so is the DNS proof: pointing while a random sibling does not.
 */
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import type { SiteRow } from "../site/store";
import type { DnsResolver, DnsResult } from "./dns";
import { type DomainProofState, type ProofEvidence, proofName } from "./domain-proof";
import { isPlatformHost, normalizeHost } from "./domains";
import { recordProof } from "./host-proof";

/** The platform's public addresses (`PLATFORM_IPV4`, `PLATFORM_IPV6`: comma lists), canonical text. */
export interface Fleet {
  ipv4: string[];
  ipv6: string[];
}

function canonicalIp(value: string, family: 4 | 6): string | null {
  try {
    if (family === 4) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(value)) return null;
      const host = new URL(`http://${value}/`).hostname;
      return host === value ? host : null;
    }
    if (!value.includes(":")) return null;
    return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function ipList(raw: string | undefined, family: 4 | 6): string[] | null {
  const parts = (raw ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const out = parts.map((p) => canonicalIp(p, family));
  return out.every((ip): ip is string => ip !== null) ? out : null;
}

/**
 * The fleet from env, or null when it is not configured (no address at all) or misconfigured (an entry
 * that is not an address of its family): then no host can be judged, which must fail loudly.
 */
export function platformFleet(env: { PLATFORM_IPV4?: string; PLATFORM_IPV6?: string }): Fleet | null {
  const ipv4 = ipList(env.PLATFORM_IPV4, 4);
  const ipv6 = ipList(env.PLATFORM_IPV6, 6);
  if (!ipv4 || !ipv6 || ipv4.length + ipv6.length === 0) return null;
  return { ipv4, ipv6 };
}

export type DnsForm = "apex_a" | "apex_aaaa" | "cname";
export type DnsReason = "nxdomain" | "no_records" | "cname_elsewhere" | "foreign_address" | "lookup_failed";

export interface HostDnsCheck {
  host: string;
  points_to_platform: boolean;
  /** The accepted form that matched; null when not pointing. */
  form: DnsForm | null;
  /** Why not pointing; null when pointing. */
  reason: DnsReason | null;
  expected: { a: string[]; aaaa: string[]; cname: string };
  /** What the host publishes (the host's own A, AAAA and CNAME). */
  records: { a: string[]; aaaa: string[]; cname: string | null };
  /** TXT strings at `_platform-verify.<host>`; null when that lookup failed. */
  proof_txt: string[] | null;
  /**
   * The DNS proof: the host points at the platform AND a random sibling name does not (so a wildcard
   * never proves). null when it cannot be told (a lookup of the host or the sibling failed).
   */
  dns_proof: boolean | null;
}

/**
 * A random sibling of `host` (its first label replaced): a wildcard that makes the host point at the
 * platform makes the sibling point there too. Random per check, so no single record can answer it.
 */
function siblingName(host: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const label = `platform-probe-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  return [label, ...host.split(".").slice(1)].join(".");
}

/**
 * Whether a name's own records reach the platform in any form (a fleet address, or a CNAME to any name
 * under the platform domain); null when a lookup failed.
 */
async function reachesPlatform(
  resolver: DnsResolver,
  fleet: Fleet,
  name: string,
  platformDomain: string,
): Promise<boolean | null> {
  const [a, aaaa, cname] = await Promise.all([
    resolver.lookup(name, "A"),
    resolver.lookup(name, "AAAA"),
    resolver.lookup(name, "CNAME"),
  ]);
  if ([a, aaaa, cname].some((r) => r.status === "failed")) return null;
  const alias = values(cname)[0];
  if (alias !== undefined && isPlatformHost(alias, platformDomain)) return true;
  return (
    values(a).some((ip) => fleet.ipv4.includes(canonicalIp(ip, 4) ?? "")) ||
    values(aaaa).some((ip) => fleet.ipv6.includes(canonicalIp(ip, 6) ?? ""))
  );
}

const values = (r: DnsResult) => (r.status === "ok" ? r.values : []);

function verdict(
  a: DnsResult,
  aaaa: DnsResult,
  cname: DnsResult,
  fleet: Fleet,
  target: string,
): { form: DnsForm | null; reason: DnsReason | null } {
  if ([a, aaaa, cname].some((r) => r.status === "failed")) return { form: null, reason: "lookup_failed" };
  // A CNAME decides alone (its target's records are not the host's); NXDOMAIN then means no such name.
  const alias = values(cname)[0];
  if (alias !== undefined) {
    return alias === target ? { form: "cname", reason: null } : { form: null, reason: "cname_elsewhere" };
  }
  if ([a, aaaa, cname].some((r) => r.status === "nxdomain")) return { form: null, reason: "nxdomain" };
  const v4 = values(a).map((ip) => canonicalIp(ip, 4));
  const v6 = values(aaaa).map((ip) => canonicalIp(ip, 6));
  if (v4.length + v6.length === 0) return { form: null, reason: "no_records" };
  const foreign =
    v4.some((ip) => !ip || !fleet.ipv4.includes(ip)) || v6.some((ip) => !ip || !fleet.ipv6.includes(ip));
  if (foreign) return { form: null, reason: "foreign_address" };
  return { form: v4.length > 0 ? "apex_a" : "apex_aaaa", reason: null };
}

/** Reads the host's records and the proof TXT through `resolver` and judges them (route and sweep). */
export async function checkHostDns(
  resolver: DnsResolver,
  fleet: Fleet,
  site: { slug: string },
  host: string,
  platformDomain: string,
): Promise<HostDnsCheck> {
  const target = `${site.slug}.${platformDomain.toLowerCase()}`;
  const [a, aaaa, cname, txt] = await Promise.all([
    resolver.lookup(host, "A"),
    resolver.lookup(host, "AAAA"),
    resolver.lookup(host, "CNAME"),
    resolver.lookup(proofName(host), "TXT"),
  ]);
  const { form, reason } = verdict(a, aaaa, cname, fleet, target);
  let dnsProof: boolean | null = reason === "lookup_failed" ? null : false;
  if (form !== null) {
    const sibling = await reachesPlatform(resolver, fleet, siblingName(host), platformDomain);
    dnsProof = sibling === null ? null : !sibling;
  }
  return {
    host,
    points_to_platform: form !== null,
    form,
    reason,
    expected: { a: fleet.ipv4, aaaa: fleet.ipv6, cname: target },
    records: { a: values(a), aaaa: values(aaaa), cname: values(cname)[0] ?? null },
    proof_txt: txt.status === "failed" ? null : values(txt),
    dns_proof: dnsProof,
  };
}

/**
 * The proof evidence of a host for a site (verify): the TXT and, when the fleet is configured, the DNS
 * proof, from the same reads as the check.
 */
export async function proofEvidence(
  env: SitesEnv,
  services: Services,
  site: { slug: string },
  host: string,
): Promise<ProofEvidence> {
  const fleet = platformFleet(env);
  if (fleet) {
    const check = await checkHostDns(services.dns, fleet, site, host, env.PLATFORM_DOMAIN);
    return { txt: check.proof_txt, dns: check.dns_proof };
  }
  const txt = await services.dns.lookup(proofName(host), "TXT");
  return { txt: txt.status === "ok" ? txt.values : txt.status === "nxdomain" ? [] : null, dns: false };
}

export interface DnsCheckAnswer extends Omit<HostDnsCheck, "proof_txt" | "dns_proof"> {
  /** The ownership proof of the host for this site; null for the platform's own hosts. */
  ownership: DomainProofState | null;
}

/**
 * `GET /v1/sites/{id}/domains/check-dns?host=`: the verdict of `checkHostDns` (the sweep's function) and
 * the ownership proof state. 400 without a host name; 500 DNS_NOT_CONFIGURED (logged as an error) when
 * the fleet's addresses are not configured, since no verdict could be right.
 */
export async function checkDomainDns(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  rawHost: string | undefined,
): Promise<DnsCheckAnswer> {
  if (rawHost === undefined || rawHost.trim() === "") fail("BAD_REQUEST", "host: required");
  const host = normalizeHost(rawHost);
  if (!host)
    fail("BAD_REQUEST", "host: must be a host name such as www.example.com (no scheme, port or path)");
  const fleet = platformFleet(env);
  if (!fleet) {
    services.log.error("dns_fleet_not_configured", { vars: ["PLATFORM_IPV4", "PLATFORM_IPV6"] });
    fail("DNS_NOT_CONFIGURED", "The platform's addresses are not configured; no DNS verdict can be given.");
  }
  const { proof_txt, dns_proof, ...check } = await checkHostDns(
    services.dns,
    fleet,
    site,
    host,
    env.PLATFORM_DOMAIN,
  );
  const ownership = isPlatformHost(host, env.PLATFORM_DOMAIN)
    ? null
    : await recordProof(env, services, site, host, { txt: proof_txt, dns: dns_proof });
  return { ...check, ownership };
}
