/**
 * An SSRF-safe GET of a user-supplied URL. Every hop is checked before it is requested: scheme,
 * credentials, host name, and EVERY address the name resolves to must be public; redirects are never
 * followed by the runtime (`redirect: "manual"`) so each Location goes through the same checks; the
 * body is counted while streaming and cut at the size cap; one deadline covers DNS, every hop and the
 * body.
 *
 * Residual risk, DNS rebinding: Workers' `fetch` resolves the host again on its own, so a name with a
 * tiny TTL could answer a public address to our check and a private one to the connection. The check
 * still stops every static attack (private literal, name pointing at a private address, redirect to
 * either), and on Cloudflare's network a Worker's `fetch` cannot reach private networks or the
 * platform's own origins by IP anyway, which is what closes the rebinding window in production. Pinning
 * the connection to the checked address is not possible: Workers refuse `fetch` to bare IP literals.
 */
import { isPublicAddress, parseIPv4, parseIPv6 } from "../../../lib/ip-ranges";
import { ResolveError, type Resolver } from "./resolver";

export type Failure = { kind: "transient"; reason: string } | { kind: "rejected"; reason: string };

export type FetchedBody = { kind: "ok"; bytes: Uint8Array; url: string } | Failure;

export interface SafeFetchDeps {
  resolver: Resolver;
  fetcher?: typeof fetch;
  maxBytes: number;
  /** Redirects followed at most (default 5); one more is a rejection. */
  maxRedirects?: number;
  /** Deadline for the whole fetch: DNS, every hop and the body (default 8000 ms). */
  timeoutMs?: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_TIMEOUT_MS = 8000;

/**
 * Names that must never be fetched whatever DNS says: loopback and the private-use zones people run
 * on internal resolvers (a split-horizon resolver could answer them with internal addresses).
 */
const PRIVATE_SUFFIXES = [
  "localhost",
  "localdomain",
  "local",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "arpa",
  "onion",
];

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** 4xx that say "try later", not "this URL is bad". */
const TRANSIENT_4XX = new Set([408, 425, 429]);

const rejected = (reason: string): Failure => ({ kind: "rejected", reason });
const transient = (reason: string): Failure => ({ kind: "transient", reason });

class DeadlineExceeded extends Error {}

function isPrivateName(host: string): boolean {
  if (!host.includes(".")) return true;
  return PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
}

/** The URL itself, before any network: scheme, credentials, and host names that are never public. */
export function checkUrl(raw: string): { ok: true; url: URL; host: string; literal: boolean } | Failure {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return rejected("invalid_url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return rejected("forbidden_scheme");
  // userinfo is a classic parser-confusion vector (`https://good.example@evil/`) and never needed.
  if (url.username !== "" || url.password !== "") return rejected("credentials_in_url");
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[")) {
    return isPublicAddress(host) ? { ok: true, url, host, literal: true } : rejected("non_public_host");
  }
  host = host.replace(/\.$/, "");
  if (host === "") return rejected("invalid_url");
  // Fetch exactly the name that was checked (`img.test.` and `img.test` are one host to DNS).
  url.hostname = host;
  // The URL parser already turns `0x7f.1` or `2130706433` into dotted decimal; parsing again here keeps
  // the check right even if a runtime's parser left a numeric host as written.
  if (parseIPv4(host) !== null || parseIPv6(host) !== null) {
    return isPublicAddress(host) ? { ok: true, url, host, literal: true } : rejected("non_public_host");
  }
  if (isPrivateName(host)) return rejected("non_public_host");
  return { ok: true, url, host, literal: false };
}

/**
 * The URL checks and the DNS check of one hop, for callers that make their own request (webhook
 * deliveries, which POST and never follow redirects): every address the name resolves to must be public.
 */
export async function checkPublicDestination(
  raw: string,
  resolver: Resolver,
): Promise<{ ok: true; url: URL } | Failure> {
  const checked = checkUrl(raw);
  if (!("ok" in checked)) return checked;
  if (checked.literal) return { ok: true, url: checked.url };
  let addresses: string[];
  try {
    addresses = await resolver.resolve(checked.host);
  } catch (err) {
    if (err instanceof ResolveError) return transient(`dns_${err.kind}`);
    return transient("dns_unavailable");
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return rejected("non_public_host");
  return { ok: true, url: checked.url };
}

/**
 * Fetches `raw` and returns its body bytes, or why not. Rejections are definitive (the URL is bad or
 * unsafe); transient failures may succeed later (timeouts, 5xx, DNS trouble, 408/425/429).
 */
export async function safeFetch(raw: string, deps: SafeFetchDeps): Promise<FetchedBody> {
  // A missing or unparsable cap (e.g. an absent env var read as NaN) would silently disable the limit.
  if (!Number.isSafeInteger(deps.maxBytes) || deps.maxBytes <= 0) {
    throw new RangeError(`safeFetch: maxBytes must be a positive integer, got ${deps.maxBytes}`);
  }
  const fetcher = deps.fetcher ?? ((input, init) => fetch(input, init));
  const maxRedirects = deps.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  // Aborts a request still waiting for its response headers when the deadline passes.
  const requestAbort = new AbortController();
  let waitingForHeaders = false;
  let expire: () => void = () => {};
  const deadline = new Promise<never>((_, reject) => {
    expire = () => {
      if (waitingForHeaders) requestAbort.abort(new DeadlineExceeded());
      reject(new DeadlineExceeded());
    };
  });
  deadline.catch(() => {});
  const timer = setTimeout(() => expire(), deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const inTime = <T>(p: Promise<T>): Promise<T> => Promise.race([p, deadline]);

  try {
    let current = raw;
    for (let hop = 0; ; hop++) {
      const checked = checkUrl(current);
      if (!("ok" in checked)) return checked;
      if (!checked.literal) {
        let addresses: string[];
        try {
          addresses = await inTime(deps.resolver.resolve(checked.host));
        } catch (err) {
          if (err instanceof DeadlineExceeded) return transient("timeout");
          if (err instanceof ResolveError) return transient(`dns_${err.kind}`);
          return transient("dns_unavailable");
        }
        // One non-public address is enough to refuse: the runtime may connect to any of them.
        if (addresses.length === 0 || !addresses.every(isPublicAddress)) return rejected("non_public_host");
      }

      let res: Response;
      waitingForHeaders = true;
      try {
        res = await inTime(
          fetcher(checked.url.toString(), {
            method: "GET",
            redirect: "manual",
            signal: requestAbort.signal,
            headers: { accept: "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.1" },
          }),
        );
      } catch (err) {
        if (err instanceof DeadlineExceeded || requestAbort.signal.aborted) return transient("timeout");
        return transient("network_error");
      } finally {
        waitingForHeaders = false;
      }

      if (REDIRECT_STATUSES.has(res.status)) {
        cancelBody(res);
        const location = res.headers.get("location");
        if (!location) return rejected("bad_redirect");
        if (hop >= maxRedirects) return rejected("too_many_redirects");
        try {
          current = new URL(location, checked.url).toString();
        } catch {
          return rejected("bad_redirect");
        }
        continue;
      }
      if (res.status < 200 || res.status > 299) {
        cancelBody(res);
        if (res.status >= 500 || TRANSIENT_4XX.has(res.status)) return transient(`http_${res.status}`);
        return rejected(`http_${res.status}`);
      }
      return await readCapped(res, checked.url.toString(), deps.maxBytes, inTime);
    }
  } catch (err) {
    if (err instanceof DeadlineExceeded) return transient("timeout");
    return transient("network_error");
  } finally {
    clearTimeout(timer);
  }
}

function cancelBody(res: Response) {
  res.body?.cancel().catch(() => {});
}

/**
 * Reads the body counting bytes as they arrive and cancels the stream the moment the cap is passed;
 * Content-Length is only used to refuse early, never trusted to be small.
 *
 * On the deadline the stream is cancelled only once the read in flight settles: workerd reports a
 * spurious unhandled rejection when a fetch body is cancelled under a pending read
 * (cloudflare/workerd#501). A body that never sends again is dropped when the invocation ends.
 */
async function readCapped(
  res: Response,
  url: string,
  maxBytes: number,
  inTime: <T>(p: Promise<T>) => Promise<T>,
): Promise<FetchedBody> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    cancelBody(res);
    return rejected("too_large");
  }
  if (!res.body) return { kind: "ok", bytes: new Uint8Array(0), url };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const pending = reader.read();
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await inTime(pending);
    } catch (err) {
      pending.then(
        () => reader.cancel().catch(() => {}),
        () => {},
      );
      throw err;
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => {});
      return rejected("too_large");
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { kind: "ok", bytes, url };
}
