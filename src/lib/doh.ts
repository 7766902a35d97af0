/**
 * One query of the DNS-over-HTTPS JSON API (`application/dns-json`, as served by Cloudflare and Google):
 * Workers have no resolver API of their own. The outbound guard's address resolver (`dohResolver`
 * below, for src/lib/safe-fetch.ts: content's image fetcher and webhook sender, identity's OpenID
 * provider requests) and sites' DNS check and health sweep (A, AAAA, CNAME, TXT) each build their
 * reading of the answer on this; tests point `DOH_URL` at the fake internet's `dns.test`.
 */
import { parseIPv4, parseIPv6 } from "./ip-ranges";

export const DOH_TYPES = { A: 1, CNAME: 5, TXT: 16, AAAA: 28 } as const;
export type DohType = keyof typeof DOH_TYPES;

export const RCODE_NOERROR = 0;
export const RCODE_NXDOMAIN = 3;

/** One answer record: owner name (lower case, no trailing dot), numeric type, data as sent (trimmed). */
export interface DohRecord {
  name: string;
  type: number;
  data: string;
}

export interface DohAnswer {
  /** The DNS rcode (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN). */
  status: number;
  records: DohRecord[];
}

/** The DoH server could not be asked or answered something that is not a DoH JSON answer. */
export class DohUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DohUnavailable";
  }
}

export type DohFetcher = (input: string, init: RequestInit) => Promise<Response>;

export const defaultDohFetcher: DohFetcher = (input, init) => fetch(input, init);

/** A host name as DNS writes it in answers, compared lower case without the trailing dot. */
export function dnsName(value: string): string {
  return value.trim().toLowerCase().replace(/\.$/, "");
}

/** Asks `dohUrl` for the `type` records of `name`; throws `DohUnavailable` when there is no usable answer. */
export async function dohQuery(
  dohUrl: string,
  name: string,
  type: DohType,
  fetcher: DohFetcher = defaultDohFetcher,
  signal?: AbortSignal,
): Promise<DohAnswer> {
  const url = new URL(dohUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let res: Response;
  try {
    res = await fetcher(url.toString(), {
      headers: { accept: "application/dns-json" },
      redirect: "manual",
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    throw new DohUnavailable(`DoH request failed: ${String(err)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new DohUnavailable(`DoH answered ${res.status}`);
  }
  let body: { Status?: unknown; Answer?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new DohUnavailable("DoH answer is not JSON");
  }
  if (typeof body.Status !== "number") throw new DohUnavailable("DoH answer without Status");
  const records: DohRecord[] = [];
  for (const answer of Array.isArray(body.Answer) ? body.Answer : []) {
    const a = (answer ?? {}) as { name?: unknown; type?: unknown; data?: unknown };
    if (typeof a.type !== "number") continue;
    records.push({
      name: typeof a.name === "string" ? dnsName(a.name) : "",
      type: a.type,
      data: typeof a.data === "string" ? a.data.trim() : "",
    });
  }
  return { status: body.Status, records };
}

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
export function dohResolver(dohUrl: string, fetcher: DohFetcher = defaultDohFetcher): Resolver {
  async function query(host: string, type: "A" | "AAAA"): Promise<{ rcode: number; addresses: string[] }> {
    let answer: DohAnswer;
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
