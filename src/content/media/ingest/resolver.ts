/**
 * Name resolution for the image fetcher, behind a small interface so tests inject the fake internet's
 * DNS-over-HTTPS server. Workers have no resolver API of their own, so the production adapter speaks
 * the DNS-over-HTTPS JSON API (`application/dns-json`, as served by Cloudflare and Google) through
 * the shared query of src/lib/doh.ts.
 */
import {
  DOH_TYPES,
  type DohFetcher,
  DohUnavailable,
  dohQuery,
  RCODE_NOERROR,
  RCODE_NXDOMAIN,
} from "../../../lib/doh";
import { parseIPv4, parseIPv6 } from "../../../lib/ip-ranges";

export interface Resolver {
  /** Every A and AAAA address of `host`; throws `ResolveError` when that set cannot be known. */
  resolve(host: string): Promise<string[]>;
}

export type ResolveFailure = "nxdomain" | "no_address" | "unavailable";

export class ResolveError extends Error {
  constructor(
    readonly kind: ResolveFailure,
    message: string,
  ) {
    super(message);
    this.name = "ResolveError";
  }
}

/**
 * Resolver over the DNS-over-HTTPS JSON API at `dohUrl`: A and AAAA are asked in parallel and both
 * must answer, because the safety check needs the COMPLETE address set (a host with one public A and
 * one private AAAA must be refused, so a missing half is a failure, not a smaller set). CNAME chains
 * are followed by the DoH server; only the A/AAAA records of its answer are used.
 */
export function dohResolver(
  dohUrl: string,
  fetcher: DohFetcher = (input, init) => fetch(input, init),
): Resolver {
  async function query(host: string, type: "A" | "AAAA"): Promise<{ rcode: number; addresses: string[] }> {
    let answer: Awaited<ReturnType<typeof dohQuery>>;
    try {
      answer = await dohQuery(dohUrl, host, type, fetcher);
    } catch (err) {
      if (err instanceof DohUnavailable) throw new ResolveError("unavailable", err.message);
      throw err;
    }
    const wanted = DOH_TYPES[type];
    const addresses: string[] = [];
    for (const record of answer.records) {
      if (record.type !== wanted) continue;
      const data = record.data;
      // A malformed record makes the set unknowable; refusing to guess keeps the check fail-closed.
      const valid =
        type === "A" ? /^[0-9.]+$/.test(data) && parseIPv4(data) !== null : parseIPv6(data) !== null;
      if (!valid) throw new ResolveError("unavailable", `malformed ${type} record`);
      addresses.push(data);
    }
    return { rcode: answer.status, addresses };
  }

  return {
    async resolve(host: string): Promise<string[]> {
      const [a, aaaa] = await Promise.all([query(host, "A"), query(host, "AAAA")]);
      if (a.rcode === RCODE_NXDOMAIN || aaaa.rcode === RCODE_NXDOMAIN) {
        throw new ResolveError("nxdomain", `${host} does not exist`);
      }
      if (a.rcode !== RCODE_NOERROR || aaaa.rcode !== RCODE_NOERROR) {
        throw new ResolveError("unavailable", `DNS rcode ${a.rcode}/${aaaa.rcode} for ${host}`);
      }
      const all = [...a.addresses, ...aaaa.addresses];
      if (all.length === 0) throw new ResolveError("no_address", `${host} has no A or AAAA record`);
      return all;
    },
  };
}
