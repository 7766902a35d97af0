/**
 * Edge headers as the gateway vouches for them. A service keeps `X-User-Id`, `X-Org-Memberships`,
 * `X-Site-Memberships`, `X-Platform-Operator`, `X-Session-Kind` and `X-Session-Id` only when the
 * gateway's HMAC over them verifies (src/lib/edge-trust.ts); a test that calls a service directly as a
 * staff member, an operator or a service caller signs its headers here, the way the gateway does: the
 * same canonical string (`edgeCanonical`: the target service, the request, its body, the edge headers),
 * HMAC-SHA-256 with the same secret (`EDGE_HMAC_SECRET` of the test bindings, shared by the four Workers).
 * Synchronous, so request builders stay synchronous.
 *
 * The service is the one the gateway's route table sends the path to (`routeFor`), or `options.service`.
 * The body must be the one sent (`options.body`; none by default): a signature over another body, or for
 * another service, leaves the request anonymous.
 *
 * A signed request without any edge header is a service caller (only a holder of the secret makes one);
 * an unsigned one is anonymous.
 */

import { env } from "cloudflare:workers";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { routeFor } from "../../src/gateway/routes";
import { EDGE_CONTROL_HEADERS, EDGE_SIGNATURE_HEADER } from "../../src/lib/edge";
import { type EdgeBodyProof, edgeCanonical, edgeDigestsBody } from "../../src/lib/edge-trust";

export interface EdgeSigningOptions {
  /** When the signature was made (ms since the epoch); default now. A stale one is refused. */
  at?: number;
  /** Another secret (a forger's); default the platform's. */
  secret?: string;
  /** The service the request is signed for; default the one the gateway routes its path to. */
  service?: string;
  /** The body the request carries (a string as UTF-8); default none. */
  body?: string | Uint8Array | ArrayBuffer | null;
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

function bodyBytes(body: EdgeSigningOptions["body"]): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === "string") return new TextEncoder().encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

/** The body as the gateway's signature describes it (`edgeBodyProof`, synchronously). */
function bodyProof(contentType: string | null, body: EdgeSigningOptions["body"]): EdgeBodyProof {
  const bytes = bodyBytes(body);
  if (!edgeDigestsBody(contentType, bytes.byteLength)) return { length: bytes.byteLength };
  return { sha256: base64url(sha256(bytes)) };
}

function serviceFor(url: string, options: EdgeSigningOptions): string {
  const service = options.service ?? routeFor(new URL(url).pathname)?.upstream;
  if (!service) throw new Error(`no service routes ${url}: pass options.service`);
  return service;
}

/**
 * `headers` (edge headers and any others) plus the gateway's signature for a request of `method` to
 * `url` carrying `options.body` (and that body's Content-Length); a client-sent signature or verification
 * marker in `headers` is replaced, as the gateway does.
 */
export function signEdgeHeaders(
  method: string,
  url: string,
  headers: HeadersInit = {},
  options: EdgeSigningOptions = {},
): Headers {
  const out = new Headers(headers);
  for (const name of EDGE_CONTROL_HEADERS) out.delete(name);
  // As the gateway frames it: a service trusts a body only with its length (a request built in the
  // test's isolate and handed to a Worker's handler has no Content-Length of its own).
  if (options.body !== undefined && options.body !== null) {
    out.set("content-length", String(bodyBytes(options.body).byteLength));
  }
  const timestamp = Math.floor((options.at ?? Date.now()) / 1000);
  const canonical = edgeCanonical({
    service: serviceFor(url, options),
    method,
    url,
    headers: out,
    body: bodyProof(out.get("content-type"), options.body),
    timestamp,
  });
  const mac = hmac(
    sha256,
    new TextEncoder().encode(options.secret ?? platformSecret()),
    new TextEncoder().encode(canonical),
  );
  out.set(EDGE_SIGNATURE_HEADER, `t=${timestamp},v1=${base64url(mac)}`);
  return out;
}

/** The same request (without a body: sign one with `signEdgeHeaders`) with its edge headers signed. */
export function signEdgeRequest(request: Request, options: EdgeSigningOptions = {}): Request {
  if (request.body) throw new Error("signEdgeRequest signs requests without a body");
  return new Request(request, {
    headers: signEdgeHeaders(request.method, request.url, request.headers, options),
  });
}

/** `target.fetch` with the edge headers of `init` signed over its body (for direct calls to a service binding). */
export function fetchSigned(target: Fetcher, url: string, init: RequestInit = {}): Promise<Response> {
  const method = init.method ?? "GET";
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    throw new Error("fetchSigned signs a string or Uint8Array body");
  }
  return target.fetch(url, { ...init, headers: signEdgeHeaders(method, url, init.headers, { body }) });
}
