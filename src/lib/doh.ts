/**
 * One query of the DNS-over-HTTPS JSON API (`application/dns-json`, as served by Cloudflare and Google):
 * Workers have no resolver API of their own. Content's image fetcher and webhook sender (address sets,
 * fail-closed) and sites' DNS check and health sweep (A, AAAA, CNAME, TXT) each build their reading of
 * the answer on this; tests point `DOH_URL` at the fake internet's `dns.test`.
 */

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
