/**
 * Why a service may believe the edge headers: the gateway vouches for them with an HMAC-SHA-256 (the
 * shared secret `EDGE_HMAC_SECRET`, the same value on the four Workers) over the method, the path and
 * query, a timestamp and every edge header (absent ones included). Each service runs `edgeTrust` first on
 * every request (`createServiceApp`): a request whose signature verifies keeps its edge headers and is
 * marked `x-edge-verified`; any other request loses every edge header (and any client-sent marker), so
 * it is anonymous, never a service caller. A direct call with a forged `X-Platform-Operator` is therefore
 * a caller with no identity, whatever route it reaches, a future public route of content included.
 */
import type { Context, Env as HonoEnv, Next } from "hono";
import { EDGE_CONTROL_HEADERS, EDGE_HEADER_NAMES, EDGE_SIGNATURE_HEADER, EDGE_VERIFIED_HEADER } from "./edge";

/**
 * How old (or how far ahead) a signature may be. The gateway signs right before it forwards over a
 * service binding (same machine, same clock), so a minute only absorbs clock skew; it bounds how long a
 * captured signed request could be replayed (signed headers never reach a client: services do not echo
 * them).
 */
export const EDGE_SIGNATURE_MAX_AGE_S = 60;

/**
 * The signed string: version, method, path with query, timestamp, then each edge header by name in the
 * contract's order with its value as JSON (`null` when absent), so an added, removed or changed header,
 * another route or another method all change it.
 */
export function edgeCanonical(method: string, url: string, headers: Headers, timestamp: number): string {
  const target = new URL(url);
  const lines = ["edge-v1", method.toUpperCase(), `${target.pathname}${target.search}`, String(timestamp)];
  for (const name of EDGE_HEADER_NAMES) lines.push(`${name}:${JSON.stringify(headers.get(name))}`);
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

/** Sets the edge's signature on `headers` (which already hold the edge headers) for this request. */
export async function signEdgeHeaders(
  secret: string | undefined,
  method: string,
  url: string,
  headers: Headers,
  now = Date.now(),
): Promise<void> {
  if (!secret) throw new Error("EDGE_HMAC_SECRET is not set: the edge cannot vouch for its headers");
  const timestamp = Math.floor(now / 1000);
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    new TextEncoder().encode(edgeCanonical(method, url, headers, timestamp)),
  );
  headers.set(EDGE_SIGNATURE_HEADER, `t=${timestamp},v1=${base64url(mac)}`);
}

/** True when the request carries a fresh signature of the gateway over its edge headers. */
async function edgeSignatureValid(
  secret: string | undefined,
  request: Request,
  now = Date.now(),
): Promise<boolean> {
  const match = /^t=(\d{1,12}),v1=([A-Za-z0-9_-]+)$/.exec(request.headers.get(EDGE_SIGNATURE_HEADER) ?? "");
  if (!secret || !match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(now / 1000 - timestamp) > EDGE_SIGNATURE_MAX_AGE_S) return false;
  const mac = fromBase64url(match[2]!);
  if (!mac) return false;
  const data = new TextEncoder().encode(
    edgeCanonical(request.method, request.url, request.headers, timestamp),
  );
  // WebCrypto's verify compares in constant time.
  return crypto.subtle.verify("HMAC", await hmacKey(secret), mac, data);
}

/**
 * The services' first middleware: keeps the edge headers only when the gateway vouched for them, and
 * otherwise removes every one of them, so the rest of the service reads an anonymous caller.
 */
export function edgeTrust<E extends HonoEnv>() {
  return async (c: Context<E>, next: Next) => {
    const raw = c.req.raw;
    const present = [...EDGE_HEADER_NAMES, ...EDGE_CONTROL_HEADERS].some((name) => raw.headers.has(name));
    if (present) {
      const secret = (c.env as { EDGE_HMAC_SECRET?: string } | undefined)?.EDGE_HMAC_SECRET;
      const vouched = await edgeSignatureValid(secret, raw);
      const headers = new Headers(raw.headers);
      for (const name of EDGE_CONTROL_HEADERS) headers.delete(name);
      if (vouched) headers.set(EDGE_VERIFIED_HEADER, "1");
      else for (const name of EDGE_HEADER_NAMES) headers.delete(name);
      // `cf` (country, colo) is carried over explicitly: it is not a header.
      c.req.raw = new Request(raw, { headers, cf: raw.cf } as RequestInit);
    }
    await next();
  };
}
