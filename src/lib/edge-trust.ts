/**
 * Why a service may believe the edge headers: the gateway vouches for them with an HMAC-SHA-256 (the
 * shared secret `EDGE_HMAC_SECRET`, the same value on the four Workers) over the service it forwards to,
 * the method, the path and query, a timestamp, the body (its SHA-256, or its length) and every edge header
 * (absent ones included). Each service runs `edgeTrust(itsName)` first on every request (`createServiceApp`):
 * a request whose signature verifies keeps its edge headers and is marked `x-edge-verified`; any other
 * request loses every edge header (and any client-sent marker), so it is anonymous, never a service
 * caller. A direct call with a forged `X-Platform-Operator` is therefore a caller with no identity,
 * whatever route it reaches, a future public route of content included; a signed request captured on its
 * way to one service and replayed to another, or with another body, is anonymous too.
 */

import type { Context, Env as HonoEnv, Next } from "hono";
import { readCappedBytes } from "./capped-body";
import { EDGE_CONTROL_HEADERS, EDGE_HEADER_NAMES, EDGE_SIGNATURE_HEADER, EDGE_VERIFIED_HEADER } from "./edge";
import { isJson } from "./media-type";
import { CommonErrors, errorsOf, problemResponse } from "./problem";

const { problem } = errorsOf(CommonErrors);

/**
 * How old (or how far ahead) a signature may be. The gateway signs right before it forwards over a
 * service binding (same machine, same clock), so a minute only absorbs clock skew; it bounds how long a
 * captured signed request could be replayed (signed headers never reach a client: services do not echo
 * them).
 */
export const EDGE_SIGNATURE_MAX_AGE_S = 60;

/**
 * The largest JSON body the signature covers byte for byte (by its SHA-256): every dashboard body is far
 * smaller (sites caps its bodies at 1 MiB). A larger body, and any body that is not JSON (an upload), is
 * covered by its length only, so a service never holds a big body in memory to check it.
 */
export const EDGE_BODY_DIGEST_MAX_BYTES = 1024 * 1024;

/** What the signature says about the body: its SHA-256 (base64url), or its length in bytes. */
export type EdgeBodyProof = { sha256: string } | { length: number };

/** True when a body of `length` bytes of this Content-Type is signed by its digest (else by its length). */
export function edgeDigestsBody(contentType: string | null, length: number): boolean {
  return length <= EDGE_BODY_DIGEST_MAX_BYTES && isJson(contentType);
}

/** The body's proof as the signature carries it (a missing body is an empty one). */
export async function edgeBodyProof(
  contentType: string | null,
  body: Uint8Array | null,
): Promise<EdgeBodyProof> {
  const bytes = body ?? new Uint8Array(0);
  if (!edgeDigestsBody(contentType, bytes.byteLength)) return { length: bytes.byteLength };
  return { sha256: base64url(await crypto.subtle.digest("SHA-256", bytes)) };
}

/** What one signature is about. */
export interface EdgeSigned {
  /** The service the gateway forwards to (`identity`, `content`, `sites`): each verifies with its own name. */
  service: string;
  method: string;
  url: string;
  /** Every header of the request: the edge headers and `content-type` are signed. */
  headers: Headers;
  body: EdgeBodyProof;
  timestamp: number;
}

/**
 * The signed string: version, service, method, path with query, timestamp, the body (digest or length)
 * and its Content-Type, then each edge header by name in the contract's order with its value as JSON
 * (`null` when absent), so another service, another body, an added, removed or changed header, another
 * route or another method all change it.
 */
export function edgeCanonical(signed: EdgeSigned): string {
  const target = new URL(signed.url);
  const body = "sha256" in signed.body ? `sha256=${signed.body.sha256}` : `length=${signed.body.length}`;
  const lines = [
    "edge-v2",
    signed.service,
    signed.method.toUpperCase(),
    `${target.pathname}${target.search}`,
    String(signed.timestamp),
    `body:${body}`,
    `content-type:${JSON.stringify(signed.headers.get("content-type"))}`,
  ];
  for (const name of EDGE_HEADER_NAMES) lines.push(`${name}:${JSON.stringify(signed.headers.get(name))}`);
  return lines.join("\n");
}

const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    if (keys.size > 4) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

function base64url(bytes: ArrayBuffer): string {
  let bin = "";
  for (const b of new Uint8Array(bytes)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The request the gateway is about to forward: to which service, and the body exactly as it will send it. */
export interface EdgeForward {
  service: string;
  method: string;
  url: string;
  body: Uint8Array | null;
}

/** Sets the edge's signature on `headers` (which already hold the edge headers) for this request. */
export async function signEdgeHeaders(
  secret: string | undefined,
  forward: EdgeForward,
  headers: Headers,
  now = Date.now(),
): Promise<void> {
  if (!secret) throw new Error("EDGE_HMAC_SECRET is not set: the edge cannot vouch for its headers");
  const timestamp = Math.floor(now / 1000);
  const body = await edgeBodyProof(headers.get("content-type"), forward.body);
  const canonical = edgeCanonical({ ...forward, headers, body, timestamp });
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(canonical));
  headers.set(EDGE_SIGNATURE_HEADER, `t=${timestamp},v1=${base64url(mac)}`);
}

const lengthLie = () => problem("BAD_REQUEST", "The body's length differs from its Content-Length.");

/**
 * A pass-through stream: workerd's native one where it exists, since the runtime reports a JavaScript
 * stream that errors while it reads it as an unhandled rejection too; the standard one elsewhere (Node).
 */
function passThrough(): TransformStream<Uint8Array, Uint8Array> {
  const Native = (
    globalThis as { IdentityTransformStream?: new () => TransformStream<Uint8Array, Uint8Array> }
  ).IdentityTransformStream;
  return Native ? new Native() : new TransformStream<Uint8Array, Uint8Array>();
}

/**
 * `body` passed on unchanged but bound to `length`: a body that runs past it or ends short fails the
 * route's read (and `lied` is called), since the runtime hands a service the body a caller sent whatever
 * Content-Length it claimed. Chunk by chunk, nothing held.
 */
function exactly(
  body: ReadableStream<Uint8Array>,
  length: number,
  lied: () => void,
): ReadableStream<Uint8Array> {
  const { readable, writable } = passThrough();
  const reader = body.getReader();
  const writer = writable.getWriter();
  const refuse = async () => {
    lied();
    await reader.cancel();
    await writer.abort(lengthLie());
  };
  const pump = async () => {
    let seen = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return seen === length ? writer.close() : refuse();
      seen += value.byteLength;
      if (seen > length) return refuse();
      await writer.write(value);
    }
  };
  // A route that stops reading (or never starts) leaves the pump waiting: nothing else to do.
  pump().catch(() => {});
  return readable;
}

/** The body as a signature describes it, and the body the service reads from now on. */
interface ReceivedBody {
  proof: EdgeBodyProof;
  /** Replaces the request's body (a digested body was read here; a length-signed one is counted). */
  body?: Uint8Array | ReadableStream<Uint8Array>;
}

/**
 * What the service received, as the gateway signed it: a JSON body up to 1 MiB is read here (once, capped
 * at its declared length) and digested, and the same bytes are what the route reads; any other body is
 * described by its Content-Length and counted while the route streams it. A body without a declared
 * length (a stream without Content-Length) cannot be described before it is read whole: null, so no
 * signature vouches for it (the gateway never sends one: it forwards every body with its length).
 */
async function receivedBody(request: Request, lied: () => void): Promise<ReceivedBody | null> {
  const contentType = request.headers.get("content-type");
  if (!request.body) return { proof: await edgeBodyProof(contentType, null) };
  const declared = request.headers.get("content-length");
  if (declared === null || !/^\d{1,12}$/.test(declared)) return null;
  const length = Number(declared);
  if (!edgeDigestsBody(contentType, length)) {
    return { proof: { length }, body: exactly(request.body, length, lied) };
  }
  const bytes = await readCappedBytes(request.body, length);
  if (!bytes || bytes.byteLength !== length) throw lengthLie();
  return { proof: await edgeBodyProof(contentType, bytes), body: bytes };
}

/**
 * Whether the request carries a fresh signature of the gateway, made for `service`, over its edge headers
 * and this body; and the body to read from now on. The body is looked at only once the signature is
 * well-formed and fresh, so a garbage or stale one costs no read.
 */
async function edgeSignatureValid(
  secret: string | undefined,
  service: string,
  request: Request,
  lied: () => void,
  now = Date.now(),
): Promise<{ vouched: boolean; body?: ReceivedBody["body"] }> {
  const match = /^t=(\d{1,12}),v1=([A-Za-z0-9_-]+)$/.exec(request.headers.get(EDGE_SIGNATURE_HEADER) ?? "");
  if (!secret || !match) return { vouched: false };
  const timestamp = Number(match[1]);
  if (Math.abs(now / 1000 - timestamp) > EDGE_SIGNATURE_MAX_AGE_S) return { vouched: false };
  const mac = fromBase64url(match[2]!);
  if (!mac) return { vouched: false };
  const received = await receivedBody(request, lied);
  if (!received) return { vouched: false };
  const canonical = edgeCanonical({
    service,
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: received.proof,
    timestamp,
  });
  // WebCrypto's verify compares in constant time.
  const vouched = await crypto.subtle.verify(
    "HMAC",
    await hmacKey(secret),
    mac,
    new TextEncoder().encode(canonical),
  );
  return { vouched, body: received.body };
}

/**
 * The services' first middleware: keeps the edge headers only when the gateway vouched for them, for this
 * `service` and this body, and otherwise removes every one of them, so the rest of the service reads an
 * anonymous caller.
 */
export function edgeTrust<E extends HonoEnv>(service: string) {
  return async (c: Context<E>, next: Next) => {
    const raw = c.req.raw;
    const present = [...EDGE_HEADER_NAMES, ...EDGE_CONTROL_HEADERS].some((name) => raw.headers.has(name));
    if (!present) return next();
    const secret = (c.env as { EDGE_HMAC_SECRET?: string } | undefined)?.EDGE_HMAC_SECRET;
    let lied = false;
    const { vouched, body } = await edgeSignatureValid(secret, service, raw, () => {
      lied = true;
    });
    const headers = new Headers(raw.headers);
    for (const name of EDGE_CONTROL_HEADERS) headers.delete(name);
    if (vouched) headers.set(EDGE_VERIFIED_HEADER, "1");
    else for (const name of EDGE_HEADER_NAMES) headers.delete(name);
    // `cf` (country, colo) is carried over explicitly: it is not a header.
    const init = { headers, cf: raw.cf, ...(body ? { body, duplex: "half" } : {}) };
    c.req.raw = new Request(raw, init as RequestInit);
    await next();
    // A length-signed body that ran past or short of its Content-Length failed the route's read; the
    // runtime's stream carries only the message, so the answer is made here: 400, not the 500 it became.
    if (lied && c.res.status >= 500) c.res = problemResponse(lengthLie());
  };
}
