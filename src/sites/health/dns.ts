/**
 * Sites' DNS reads (the domain check and the hourly health sweep), behind a small interface so both use
 * the same lookup: the DNS-over-HTTPS JSON API at `DOH_URL` (src/lib/doh.ts). Only the records a host
 * publishes ITSELF count: the A/AAAA records of the host's own name (an answer that follows a CNAME
 * carries the target's records under the target's name), the host's CNAME, and the TXT strings of a name.
 */
import {
  DOH_TYPES,
  type DohFetcher,
  DohUnavailable,
  dnsName,
  dohQuery,
  RCODE_NOERROR,
  RCODE_NXDOMAIN,
} from "../../lib/doh";

/** A name's records of one type, or why there are none. */
export type DnsResult =
  | { status: "ok"; values: string[] }
  | { status: "nxdomain" }
  /** The DoH server failed, timed out, or answered an rcode other than NOERROR/NXDOMAIN. */
  | { status: "failed"; reason: string };

export interface DnsResolver {
  lookup(name: string, type: "A" | "AAAA" | "CNAME" | "TXT"): Promise<DnsResult>;
}

/** A hung DoH server never holds a check or a sweep longer than this per query. */
export const DNS_TIMEOUT_MS = 3000;

/**
 * TXT data as DoH JSON carries it: one or more quoted character-strings (`"a" "b"`), which DNS
 * concatenates into one value; an unquoted value is taken as is.
 */
export function txtValue(data: string): string {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
  return parts.length > 0 ? parts.join("") : data;
}

export function dohDnsResolver(
  dohUrl: string,
  fetcher?: DohFetcher,
  timeoutMs = DNS_TIMEOUT_MS,
): DnsResolver {
  return {
    async lookup(name, type) {
      const owner = dnsName(name);
      try {
        const answer = await dohQuery(dohUrl, owner, type, fetcher, AbortSignal.timeout(timeoutMs));
        if (answer.status === RCODE_NXDOMAIN) return { status: "nxdomain" };
        if (answer.status !== RCODE_NOERROR) return { status: "failed", reason: `rcode ${answer.status}` };
        const values = answer.records
          .filter((r) => r.type === DOH_TYPES[type] && r.name === owner)
          .map((r) => (type === "TXT" ? txtValue(r.data) : type === "CNAME" ? dnsName(r.data) : r.data));
        return { status: "ok", values };
      } catch (err) {
        if (err instanceof DohUnavailable) return { status: "failed", reason: err.message };
        throw err;
      }
    },
  };
}
