/**
 * The one guard every request to a user-supplied URL goes through (content's image ingest and webhook
 * deliveries, identity's OpenID provider discovery, JWKS and token requests). Each caller passes its
 * own options; the guard returns typed failures and each service maps them to its own catalogue.
 *
 * Every hop is checked before it is requested: the scheme is one the caller allows, the URL carries no
 * credentials, the host is not a private name, and EVERY address the name resolves to (A and AAAA) is
 * public (src/lib/ip-ranges.ts, whatever notation a literal is written in). Redirects are never followed
 * by the runtime (`redirect: "manual"`): a caller either takes a 3xx as the answer, or lets the guard
 * follow up to n of them, each Location checked like the first URL. The body is counted while
 * streaming and cut at the caller's cap (Content-Length only refuses early). One deadline covers DNS,
 * every hop and the body.
 *
 * DNS rebinding: Workers' `fetch` resolves the host again on its own, and it cannot be pinned to the
 * checked address (Workers refuse `fetch` to bare IP literals and `cf.resolveOverride` only names
 * hosts of the same zone). So the guard relies on the platform's guarantee for the window between its
 * check and the runtime's connection: on Cloudflare's network a Worker's subrequest leaves from the
 * edge to the public internet and cannot reach private networks, loopback or the platform's own
 * origins by address. What the guard itself guarantees: every hop (each redirect too) is resolved and
 * judged again, one non-public address in an answer refuses the host, and each hop is resolved once
 * (the answer judged is the only answer used). Residual risk: a name with a tiny TTL that answers our
 * resolver public and the runtime's resolver with another PUBLIC host's address, which only reaches
 * what any public URL reaches.
 */
import { ResolveError, type Resolver } from "./doh";
import { isPublicAddress, parseIPv4, parseIPv6 } from "./ip-ranges";

export type Scheme = "http:" | "https:";

/** Definitive: the URL (or a redirect) is bad or unsafe; trying again cannot help. */
export type RejectReason =
  | "invalid_url"
  | "forbidden_scheme"
  | "credentials_in_url"
  | "non_public_host"
  | "bad_redirect"
  | "too_many_redirects"
  | "too_large";

/** May succeed later. */
export type TransientReason =
  | "timeout"
  | "network_error"
  | "dns_nxdomain"
  | "dns_no_address"
  | "dns_unavailable";

export type GuardFailure =
  | { kind: "rejected"; reason: RejectReason }
  | { kind: "transient"; reason: TransientReason };

export interface UrlPolicy {
  /** Schemes the URL and every redirect's Location may use. */
  schemes: readonly Scheme[];
  /**
   * Development only: on these schemes `localhost`, `127.0.0.1` and `[::1]` are allowed without the
   * address check (identity's `DEV_SSO_LOCAL_ISSUERS`, content's `DEV_OUTBOX`; never set in a deploy).
   */
  loopbackSchemes?: readonly Scheme[];
}

export interface DestinationPolicy extends UrlPolicy {
  resolver: Resolver;
  /** Deadline for the whole call: DNS, every hop and the body. */
  timeoutMs: number;
}

/** Which answers' bodies are read and how much of them; unread bodies are cancelled and come back `null`. */
export type BodyPolicy = "never" | { read: "always" | "2xx"; maxBytes: number };

export interface GuardOptions extends DestinationPolicy {
  /** More than `maxBytes` is `too_large`. */
  body: BodyPolicy;
  /**
   * `"answer"`: a 3xx is handed back like any other answer, never followed. A number n: up to n
   * redirects are followed, each Location checked like the first URL; the (n+1)th is `too_many_redirects`.
   */
  redirects: "answer" | number;
  fetcher?: typeof fetch;
}

/** What the request may set; `redirect` and `signal` belong to the guard. */
export type GuardedInit = Pick<RequestInit, "method" | "headers" | "body">;

export interface GuardedAnswer {
  kind: "answer";
  status: number;
  headers: Headers;
  body: Uint8Array | null;
  /** The URL that answered (after redirects). */
  url: string;
}

export interface CheckedUrl {
  ok: true;
  url: URL;
  host: string;
  /** An IP literal (judged as written, nothing to resolve). */
  literal: boolean;
  /** A development loopback target allowed by `loopbackSchemes`. */
  loopback: boolean;
}

/**
 * Names that must never be fetched whatever DNS says: loopback and the private-use zones people run on
 * internal resolvers (a split-horizon resolver could answer them with internal addresses), and Tor's.
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
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const rejected = (reason: RejectReason): GuardFailure => ({ kind: "rejected", reason });
const transient = (reason: TransientReason): GuardFailure => ({ kind: "transient", reason });

class DeadlineExceeded extends Error {}

function isPrivateName(host: string): boolean {
  if (!host.includes(".")) return true;
  return PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
}

const isLiteral = (host: string) =>
  host.startsWith("[") || parseIPv4(host) !== null || parseIPv6(host) !== null;

/** The URL alone, before any network: scheme, credentials, and host names that are never public. */
export function checkUrl(raw: string, policy: UrlPolicy): CheckedUrl | GuardFailure {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return rejected("invalid_url");
  }
  const scheme = url.protocol as Scheme;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  // Development loopback targets, on the schemes the caller names; nothing else is opened by the flag.
  const credentials = url.username !== "" || url.password !== "";
  if (policy.loopbackSchemes?.includes(scheme) && LOOPBACK_HOSTS.has(host) && !credentials) {
    return { ok: true, url, host, literal: isLiteral(host), loopback: true };
  }
  if (!policy.schemes.includes(scheme)) return rejected("forbidden_scheme");
  // userinfo is a classic parser-confusion vector (`https://good.example@evil/`) and never needed.
  if (credentials) return rejected("credentials_in_url");
  if (host === "") return rejected("invalid_url");
  // Request exactly the name that was checked (`img.test.` and `img.test` are one host to DNS).
  if (!host.startsWith("[")) url.hostname = host;
  // The URL parser already turns `0x7f.1` or `2130706433` into dotted decimal; parsing again here keeps
  // the check right even if a runtime's parser left a numeric host as written.
  if (isLiteral(host)) {
    return isPublicAddress(host)
      ? { ok: true, url, host, literal: true, loopback: false }
      : rejected("non_public_host");
  }
  if (isPrivateName(host)) return rejected("non_public_host");
  return { ok: true, url, host, literal: false, loopback: false };
}

/** A deadline that every await of one guarded call races; it also aborts a request waiting for headers. */
function deadline(timeoutMs: number) {
  const abort = new AbortController();
  let waitingForHeaders = false;
  let expire: () => void = () => {};
  const expired = new Promise<never>((_, reject) => {
    expire = () => {
      if (waitingForHeaders) abort.abort(new DeadlineExceeded());
      reject(new DeadlineExceeded());
    };
  });
  expired.catch(() => {});
  const timer = setTimeout(() => expire(), timeoutMs);
  return {
    signal: abort.signal,
    inTime: <T>(p: Promise<T>): Promise<T> => Promise.race([p, expired]),
    async request<T>(p: () => Promise<T>): Promise<T> {
      waitingForHeaders = true;
      try {
        return await Promise.race([p(), expired]);
      } finally {
        waitingForHeaders = false;
      }
    },
    clear: () => clearTimeout(timer),
  };
}

type Deadline = ReturnType<typeof deadline>;

/** One hop's checks: the URL, then every address its name resolves to (one resolution per hop). */
async function checkHop(
  raw: string,
  policy: DestinationPolicy,
  time: Deadline,
): Promise<CheckedUrl | GuardFailure> {
  const checked = checkUrl(raw, policy);
  if (!("ok" in checked) || checked.literal || checked.loopback) return checked;
  let addresses: string[];
  try {
    addresses = await time.inTime(policy.resolver.resolve(checked.host));
  } catch (err) {
    if (err instanceof DeadlineExceeded) return transient("timeout");
    if (err instanceof ResolveError) return transient(`dns_${err.kind}`);
    return transient("dns_unavailable");
  }
  // One non-public address is enough to refuse: the runtime may connect to any of them.
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return rejected("non_public_host");
  return checked;
}

/**
 * The checks of a request without making it (a webhook's registration): the URL and every address its
 * name resolves to, within the deadline. Returns the URL to request (its host normalized).
 */
export async function checkDestination(
  raw: string,
  policy: DestinationPolicy,
): Promise<{ ok: true; url: string } | GuardFailure> {
  const time = deadline(policy.timeoutMs);
  try {
    const checked = await checkHop(raw, policy, time);
    return "ok" in checked ? { ok: true, url: checked.url.toString() } : checked;
  } finally {
    time.clear();
  }
}

function assertCap(body: BodyPolicy) {
  // A missing or unparsable cap (e.g. an absent env var read as NaN) would silently disable the limit.
  if (body !== "never" && (!Number.isSafeInteger(body.maxBytes) || body.maxBytes <= 0)) {
    throw new RangeError(`guardedFetch: maxBytes must be a positive integer, got ${body.maxBytes}`);
  }
}

/**
 * Requests `raw` under the guard and returns the answer (status, headers, the body if read), or why
 * not. A non-2xx answer is an answer: what it means is the caller's business.
 */
export async function guardedFetch(
  raw: string,
  init: GuardedInit,
  options: GuardOptions,
): Promise<GuardedAnswer | GuardFailure> {
  assertCap(options.body);
  const fetcher = options.fetcher ?? ((input, i) => fetch(input, i));
  const time = deadline(options.timeoutMs);
  try {
    let current = raw;
    for (let hop = 0; ; hop++) {
      const checked = await checkHop(current, options, time);
      if (!("ok" in checked)) return checked;
      const url = checked.url.toString();
      let res: Response;
      try {
        res = await time.request(() => fetcher(url, { ...init, redirect: "manual", signal: time.signal }));
      } catch (err) {
        if (err instanceof DeadlineExceeded || time.signal.aborted) return transient("timeout");
        return transient("network_error");
      }
      if (options.redirects !== "answer" && REDIRECT_STATUSES.has(res.status)) {
        cancelBody(res);
        const next = nextHop(res, checked.url, hop, options.redirects);
        if (typeof next !== "string") return next;
        current = next;
        continue;
      }
      return await answer(res, url, options, time);
    }
  } catch (err) {
    if (err instanceof DeadlineExceeded) return transient("timeout");
    return transient("network_error");
  } finally {
    time.clear();
  }
}

function nextHop(res: Response, from: URL, hop: number, maxRedirects: number): string | GuardFailure {
  const location = res.headers.get("location");
  if (!location) return rejected("bad_redirect");
  if (hop >= maxRedirects) return rejected("too_many_redirects");
  try {
    return new URL(location, from).toString();
  } catch {
    return rejected("bad_redirect");
  }
}

async function answer(
  res: Response,
  url: string,
  options: GuardOptions,
  time: Deadline,
): Promise<GuardedAnswer | GuardFailure> {
  const policy = options.body;
  const ok = res.status >= 200 && res.status <= 299;
  const base = { kind: "answer" as const, status: res.status, headers: res.headers, url };
  if (policy === "never" || (policy.read === "2xx" && !ok)) {
    cancelBody(res);
    return { ...base, body: null };
  }
  const body = await readCapped(res, policy.maxBytes, time);
  return body === null ? rejected("too_large") : { ...base, body };
}

function cancelBody(res: Response) {
  res.body?.cancel().catch(() => {});
}

/**
 * Reads the body counting bytes as they arrive (decoded bytes: a small gzip bomb counts as what it
 * inflates to) and cancels the stream the moment the cap is passed; null when it is passed.
 *
 * On the deadline the stream is cancelled only once the read in flight settles: workerd reports a
 * spurious unhandled rejection when a fetch body is cancelled under a pending read
 * (cloudflare/workerd#501). A body that never sends again is dropped when the invocation ends.
 */
async function readCapped(res: Response, maxBytes: number, time: Deadline): Promise<Uint8Array | null> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    cancelBody(res);
    return null;
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const pending = reader.read();
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await time.inTime(pending);
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
      return null;
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}
