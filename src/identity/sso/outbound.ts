/**
 * Requests to an organization's OpenID provider (discovery, JWKS, token) under the SSRF rules of
 * content's image fetcher and webhook sender (src/content/ingest/safe-fetch.ts): HTTPS only; the host
 * is never a private name, and EVERY address it resolves to (A and AAAA, through DNS-over-HTTPS:
 * src/lib/doh.ts) must be public (src/lib/ip-ranges.ts, shared with content); redirects are never
 * followed (`redirect: "manual"`, a 3xx is the provider's failure); one deadline covers DNS and the
 * request; the body is cut at a size cap. `http://localhost` (and 127.0.0.1) issuers are allowed only
 * when `DEV_SSO_LOCAL_ISSUERS` is "true", which only `npm start`'s development vars set (never a deploy).
 * Residual risk (DNS rebinding between our check and the runtime's own resolution) as content's.
 */
import { readCappedBytes } from "../../lib/capped-body";
import { DOH_TYPES, DohUnavailable, dohQuery, RCODE_NOERROR } from "../../lib/doh";
import { isPublicAddress, parseIPv4, parseIPv6 } from "../../lib/ip-ranges";
import type { Env } from "../core/worker-env";
import { SSO_FETCH_MAX_BYTES, SSO_FETCH_TIMEOUT_MS } from "./settings";

/** Why a provider URL is refused before any request: definitive (a 400 when configuring). */
export class ProviderUrlRefused extends Error {
  constructor(readonly reason: string) {
    super(`provider URL refused: ${reason}`);
    this.name = "ProviderUrlRefused";
  }
}

const PRIVATE_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "arpa",
];
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function localAllowed(env: Env): boolean {
  return env.DEV_SSO_LOCAL_ISSUERS === "true";
}

/** The URL alone: scheme, credentials, and host names that are never public (throws ProviderUrlRefused). */
export function checkProviderUrl(env: Env, raw: string): { url: URL; host: string; local: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderUrlRefused("invalid_url");
  }
  if (url.username || url.password) throw new ProviderUrlRefused("credentials_in_url");
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (LOCAL_HOSTS.has(host) && localAllowed(env) && (url.protocol === "http:" || url.protocol === "https:")) {
    return { url, host, local: true };
  }
  if (url.protocol !== "https:") throw new ProviderUrlRefused("https_required");
  if (host.startsWith("[") || parseIPv4(host) !== null || parseIPv6(host) !== null) {
    if (!isPublicAddress(host)) throw new ProviderUrlRefused("non_public_host");
    return { url, host, local: false };
  }
  if (!host.includes(".") || PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) {
    throw new ProviderUrlRefused("non_public_host");
  }
  return { url, host, local: false };
}

async function resolvesPublicly(env: Env, host: string, signal: AbortSignal): Promise<void> {
  const dohUrl = env.DOH_URL;
  let answers: Awaited<ReturnType<typeof dohQuery>>[];
  try {
    answers = await Promise.all([
      dohQuery(dohUrl, host, "A", undefined, signal),
      dohQuery(dohUrl, host, "AAAA", undefined, signal),
    ]);
  } catch (err) {
    if (err instanceof DohUnavailable) throw new Error(`DNS unavailable for ${host}`);
    throw err;
  }
  if (answers.some((a) => a.status !== RCODE_NOERROR)) throw new ProviderUrlRefused("dns_no_answer");
  const addresses = answers.flatMap((a) =>
    a.records.filter((r) => r.type === DOH_TYPES.A || r.type === DOH_TYPES.AAAA).map((r) => r.data),
  );
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new ProviderUrlRefused("non_public_host");
  }
}

/** The provider's answer, at most SSO_FETCH_MAX_BYTES (a declared larger length is refused unread). */
async function readCapped(res: Response): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  const bytes =
    Number.isFinite(declared) && declared > SSO_FETCH_MAX_BYTES
      ? null
      : await readCappedBytes(res.body, SSO_FETCH_MAX_BYTES);
  if (bytes === null) {
    await res.body?.cancel().catch(() => {});
    throw new Error("provider answer too large");
  }
  return bytes;
}

/** A `fetch` for oauth4webapi's `customFetch`: every request passes the checks above. */
export function providerFetch(env: Env): (url: string, init: RequestInit) => Promise<Response> {
  return async (raw, init) => {
    const checked = checkProviderUrl(env, raw);
    const signal = AbortSignal.timeout(SSO_FETCH_TIMEOUT_MS);
    if (!checked.local) await resolvesPublicly(env, checked.host, signal);
    const res = await fetch(checked.url.toString(), { ...init, redirect: "manual", signal });
    const body = await readCapped(res);
    return new Response(res.status === 204 ? null : body, { status: res.status, headers: res.headers });
  };
}
