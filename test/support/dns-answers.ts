/**
 * The table of recorded DNS answers that the sites DNS check and the health sweep are both run through
 * (test/sites/dns-check.integration.test.ts): each row is a host's recorded DoH answers and the verdict
 * both must give. Rows are recorded in the fake DoH server (`PUT https://dns.test/__zone/<name>`, see
 * test/support/fakes/content.ts) under names unique to the run; `txt` says what `_platform-verify.<host>`
 * carries: the checking site's own value, another site's value, or nothing.
 */
import { newId } from "../../src/lib/ids";

/** The fleet the test env configures (test/support/workers.ts): PLATFORM_IPV4 and PLATFORM_IPV6. */
export const FLEET_V4 = ["192.0.2.10", "192.0.2.11"];
export const FLEET_V6 = ["2001:db8::10"];

export interface RecordedZone {
  A?: string[];
  AAAA?: string[];
  /** `{slug}` is replaced by the checking site's slug. */
  cname?: string;
  rcode?: number;
  /** The same records also published as the wildcard `*.<parent of host>` (so every sibling has them). */
  wildcard?: boolean;
}

export interface DnsAnswerRow {
  name: string;
  zone: RecordedZone;
  txt: "own" | "other" | "none" | "servfail";
  expect: {
    points_to_platform: boolean;
    form: "apex_a" | "apex_aaaa" | "cname" | null;
    reason: "nxdomain" | "no_records" | "cname_elsewhere" | "foreign_address" | "lookup_failed" | null;
    verified: boolean;
  };
}

/** Pointing with no wildcard (the random sibling is NXDOMAIN) is the DNS proof: verified. */
const ok = (form: "apex_a" | "apex_aaaa" | "cname", verified = true) => ({
  points_to_platform: true,
  form,
  reason: null,
  verified,
});
const not = (reason: DnsAnswerRow["expect"]["reason"], verified = false) => ({
  points_to_platform: false,
  form: null,
  reason,
  verified,
});

export const DNS_ANSWERS: DnsAnswerRow[] = [
  { name: "apex-a", zone: { A: ["192.0.2.10"] }, txt: "own", expect: ok("apex_a", true) },
  { name: "apex-a-both", zone: { A: ["192.0.2.11", "192.0.2.10"] }, txt: "none", expect: ok("apex_a") },
  { name: "apex-a-foreign", zone: { A: ["203.0.113.5"] }, txt: "other", expect: not("foreign_address") },
  {
    name: "apex-a-mixed",
    zone: { A: ["192.0.2.10", "203.0.113.5"] },
    txt: "none",
    expect: not("foreign_address"),
  },
  { name: "apex-aaaa", zone: { AAAA: ["2001:0db8:0:0::10"] }, txt: "own", expect: ok("apex_aaaa", true) },
  {
    name: "apex-aaaa-foreign",
    zone: { AAAA: ["2001:db8::99"] },
    txt: "none",
    expect: not("foreign_address"),
  },
  {
    name: "apex-a-stray-aaaa",
    zone: { A: ["192.0.2.10"], AAAA: ["2001:db8::99"] },
    txt: "none",
    expect: not("foreign_address"),
  },
  { name: "www.cname-ok", zone: { cname: "{slug}.sites.localhost" }, txt: "other", expect: ok("cname") },
  {
    name: "www.cname-wrong",
    zone: { cname: "someone-else.sites.localhost" },
    txt: "own",
    expect: not("cname_elsewhere", true),
  },
  {
    name: "www.cname-foreign-target",
    zone: { cname: "elsewhere.example.test", A: ["192.0.2.10"] },
    txt: "none",
    expect: not("cname_elsewhere"),
  },
  // A wildcard makes the host AND every sibling point at the platform: never a proof; the TXT still is.
  {
    name: "www.wild-a",
    zone: { A: ["192.0.2.10"], wildcard: true },
    txt: "none",
    expect: ok("apex_a", false),
  },
  {
    name: "www.wild-cname",
    zone: { cname: "{slug}.sites.localhost", wildcard: true },
    txt: "other",
    expect: ok("cname", false),
  },
  {
    name: "www.wild-txt",
    zone: { A: ["192.0.2.10"], wildcard: true },
    txt: "own",
    expect: ok("apex_a", true),
  },
  { name: "nxdomain", zone: { rcode: 3 }, txt: "none", expect: not("nxdomain") },
  { name: "no-records", zone: {}, txt: "none", expect: not("no_records") },
  { name: "servfail", zone: { rcode: 2 }, txt: "servfail", expect: not("lookup_failed") },
];

/** A unique host per row and run (the fake DoH server lives as long as the test process). */
export function rowHost(row: DnsAnswerRow, run: string): string {
  const [first, ...rest] = row.name.split(".");
  return rest.length ? `${first}.${rest.join(".")}-${run}.test` : `${first}-${run}.test`;
}

export function newRun(): string {
  return newId().toLowerCase().slice(-10);
}

/** Records a zone in the fake DoH server. */
export async function recordZone(name: string, zone: Record<string, unknown>): Promise<void> {
  const res = await fetch(`https://dns.test/__zone/${name}`, { method: "PUT", body: JSON.stringify(zone) });
  if (res.status !== 204) throw new Error(`recordZone ${name}: ${res.status}`);
}

/** Records a row for a site: its zone and the TXT at `_platform-verify.<host>`. */
export async function recordRow(
  row: DnsAnswerRow,
  host: string,
  site: { slug: string },
  values: { own: string; other: string },
): Promise<void> {
  const { wildcard, ...recorded } = row.zone;
  const zone = {
    ...recorded,
    ...(recorded.cname ? { cname: recorded.cname.replace("{slug}", site.slug) } : {}),
  };
  await recordZone(host, zone);
  if (wildcard) await recordZone(`*.${host.split(".").slice(1).join(".")}`, zone);
  const txt =
    row.txt === "servfail"
      ? { rcode: 2 }
      : row.txt === "none"
        ? { rcode: 3 }
        : { TXT: [row.txt === "own" ? values.own : values.other, "v=spf1 -all"] };
  await recordZone(`_platform-verify.${host}`, txt);
}
