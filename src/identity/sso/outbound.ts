/**
 * Requests to an organization's OpenID provider (discovery, JWKS, token) through the platform's
 * outbound guard (src/lib/safe-fetch.ts, the one content's image fetcher and webhook sender use):
 * HTTPS only; the host is never a private name, and EVERY address it resolves to (A and AAAA, through
 * DNS-over-HTTPS) must be public; redirects are never followed (a 3xx is handed to oauth4webapi, which
 * refuses it); one deadline covers DNS, the request and the body; the body is cut at a size cap.
 * `http://localhost` (and 127.0.0.1, [::1]) issuers are allowed only when `DEV_SSO_LOCAL_ISSUERS` is
 * "true", which only `npm start`'s development vars set (never a deploy).
 */
import { dohResolver } from "../../lib/doh";
import {
  checkUrl,
  type GuardFailure,
  type GuardOptions,
  guardedFetch,
  type UrlPolicy,
} from "../../lib/safe-fetch";
import { outboundDeadline } from "../core/deadlines";
import type { Env } from "../core/worker-env";
import { SSO_FETCH_MAX_BYTES, SSO_FETCH_TIMEOUT_MS } from "./settings";

/** Answers that cannot carry a body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Why a provider URL is refused before any request: definitive (a 400 when configuring). */
export class ProviderUrlRefused extends Error {
  constructor(readonly reason: string) {
    super(`provider URL refused: ${reason}`);
    this.name = "ProviderUrlRefused";
  }
}

function policy(env: Env): UrlPolicy {
  return {
    schemes: ["https:"],
    ...(env.DEV_SSO_LOCAL_ISSUERS === "true" ? { loopbackSchemes: ["http:", "https:"] } : {}),
  };
}

/**
 * The guard's failures as SSO sees them: what the URL or its DNS says is a refusal of the issuer
 * (ProviderUrlRefused, a 400); the rest (timeouts, DNS or network trouble, an oversized answer) means
 * the provider could not be used now (a plain Error, a 503).
 */
function providerError(failure: GuardFailure): Error {
  switch (failure.reason) {
    case "forbidden_scheme":
      return new ProviderUrlRefused("https_required");
    case "invalid_url":
    case "credentials_in_url":
    case "non_public_host":
      return new ProviderUrlRefused(failure.reason);
    case "dns_nxdomain":
    case "dns_no_address":
      return new ProviderUrlRefused("dns_no_answer");
    case "too_large":
      return new Error("provider answer too large");
    default:
      return new Error(`provider request failed: ${failure.reason}`);
  }
}

/** The URL alone: scheme, credentials, and host names that are never public (throws ProviderUrlRefused). */
export function checkProviderUrl(env: Env, raw: string): { url: URL; host: string; local: boolean } {
  const checked = checkUrl(raw, policy(env));
  if (!("ok" in checked)) throw providerError(checked);
  return { url: checked.url, host: checked.host, local: checked.loopback };
}

/** The outbound guard's options for a provider request: HTTPS, no redirects, the size cap, one deadline. */
export function providerGuardOptions(env: Env): GuardOptions {
  return {
    ...policy(env),
    resolver: dohResolver(env.DOH_URL),
    timeoutMs: outboundDeadline(env, SSO_FETCH_TIMEOUT_MS),
    redirects: "answer",
    body: { read: "always", maxBytes: SSO_FETCH_MAX_BYTES },
  };
}

/** A `fetch` for oauth4webapi's `customFetch`: every request passes the guard. */
export function providerFetch(env: Env): (url: string, init: RequestInit) => Promise<Response> {
  const options = providerGuardOptions(env);
  return async (raw, init) => {
    const { method, headers, body } = init;
    const request = {
      ...(method ? { method } : {}),
      ...(headers ? { headers } : {}),
      ...(body ? { body } : {}),
    };
    const res = await guardedFetch(raw, request, options);
    if (res.kind !== "answer") throw providerError(res);
    const bodyless = NULL_BODY_STATUSES.has(res.status);
    return new Response(bodyless ? null : res.body, { status: res.status, headers: res.headers });
  };
}
