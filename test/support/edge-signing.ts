/**
 * Edge headers as the gateway vouches for them. A service keeps `X-User-Id`, `X-Org-Memberships`,
 * `X-Site-Memberships`, `X-Platform-Operator`, `X-Session-Kind` and `X-Session-Id` only when the
 * gateway's HMAC over them verifies (src/lib/edge-trust.ts); a test that calls a service directly as a
 * staff member, an operator or a service caller signs its headers here, the way the gateway does: the
 * same canonical string (`edgeCanonical`), HMAC-SHA-256 with the same secret (`EDGE_HMAC_SECRET` of the
 * test bindings, shared by the four Workers). Synchronous, so request builders stay synchronous.
 *
 * A signed request without any edge header is a service caller (only a holder of the secret makes one);
 * an unsigned one is anonymous.
 */

import { env } from "cloudflare:workers";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { EDGE_CONTROL_HEADERS, EDGE_SIGNATURE_HEADER } from "../../src/lib/edge";
import { edgeCanonical } from "../../src/lib/edge-trust";

export interface EdgeSigningOptions {
  /** When the signature was made (ms since the epoch); default now. A stale one is refused. */
  at?: number;
  /** Another secret (a forger's); default the platform's. */
  secret?: string;
}

function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function platformSecret(): string {
  const secret = (env as unknown as { EDGE_HMAC_SECRET?: string }).EDGE_HMAC_SECRET;
  if (!secret) throw new Error("EDGE_HMAC_SECRET is not bound in this test project");
  return secret;
}

/**
 * `headers` (edge headers and any others) plus the gateway's signature for a request of `method` to
 * `url`; a client-sent signature or verification marker in `headers` is replaced, as the gateway does.
 */
export function signEdgeHeaders(
  method: string,
  url: string,
  headers: HeadersInit = {},
  options: EdgeSigningOptions = {},
): Headers {
  const out = new Headers(headers);
  for (const name of EDGE_CONTROL_HEADERS) out.delete(name);
  const timestamp = Math.floor((options.at ?? Date.now()) / 1000);
  const canonical = edgeCanonical(method, url, out, timestamp);
  const mac = hmac(
    sha256,
    new TextEncoder().encode(options.secret ?? platformSecret()),
    new TextEncoder().encode(canonical),
  );
  out.set(EDGE_SIGNATURE_HEADER, `t=${timestamp},v1=${base64url(mac)}`);
  return out;
}

/** The same request with its edge headers signed as the gateway signs them. */
export function signEdgeRequest(request: Request, options: EdgeSigningOptions = {}): Request {
  return new Request(request, {
    headers: signEdgeHeaders(request.method, request.url, request.headers, options),
  });
}

/** `target.fetch` with the edge headers of `init` signed (for direct calls to a service binding). */
export function fetchSigned(target: Fetcher, url: string, init: RequestInit = {}): Promise<Response> {
  const method = init.method ?? "GET";
  return target.fetch(url, { ...init, headers: signEdgeHeaders(method, url, init.headers) });
}
