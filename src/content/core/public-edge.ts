/**
 * Content's public paths (`/v1/*`, `/media/*`) on the one public origin: a route of the public hostname
 * sends them straight to this Worker (no gateway hop), so what the gateway did for them is done here, the
 * same way for every caller (the route, the gateway's forward, content's own local address):
 * - every edge header is dropped unread: the key-authenticated API never takes an identity from headers,
 *   signed or not (src/lib/edge-trust.ts is for the dashboard routes the gateway signs);
 * - the request id: the client's `X-Request-Id` when well-formed, else a new one, logged and answered;
 * - a body above the gateway's cap (src/lib/body-caps.ts: 9 MiB, 12 MiB for `/v1/mcp`) is 413, read whole
 *   only when its length was not declared;
 * - CORS of the public paths (src/lib/public-cors.ts), preflight included.
 */
import { bodyCapDetail, publicBodyCap } from "../../lib/body-caps";
import { readCappedBytes } from "../../lib/capped-body";
import { EDGE_CONTROL_HEADERS, EDGE_HEADER_NAMES } from "../../lib/edge";
import { requestIdFrom } from "../../lib/log";
import { problemResponse } from "../../lib/problem";
import {
  isPublicPath,
  mergeVary,
  publicCorsHeaders,
  publicPreflight,
  refusedPublicKeyOrigin,
} from "../../lib/public-cors";
import { problem } from "../errors";

export { MAX_PUBLIC_BODY_BYTES } from "../../lib/body-caps";

/** Anonymous POST routes whose own preflight (content's app) names exactly what they take. */
const OWN_PREFLIGHT = /^\/v1\/(?:analytics\/collect|sites\/[^/]+\/forms\/[^/]+\/submissions)$/;

const tooLarge = (cap: number) => problemResponse(problem("PAYLOAD_TOO_LARGE", bodyCapDetail(cap)));

/** The request as content's app sees it, or the answer when the edge rules already decide it. */
async function admit(request: Request, requestId: string): Promise<Request | Response> {
  const headers = new Headers(request.headers);
  for (const name of [...EDGE_HEADER_NAMES, ...EDGE_CONTROL_HEADERS]) headers.delete(name);
  headers.set("x-request-id", requestId);
  let body: BodyInit | null = request.body;
  if (body && request.method !== "GET" && request.method !== "HEAD") {
    const cap = publicBodyCap(new URL(request.url).pathname);
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > cap) return tooLarge(cap);
    if (declared === null) {
      const bytes = await readCappedBytes(request.body, cap);
      if (!bytes) return tooLarge(cap);
      body = bytes;
    }
  }
  return new Request(request.url, {
    method: request.method,
    headers,
    body,
    redirect: "manual",
    cf: request.cf,
  } as RequestInit);
}

/** Answers a public path through `app` with the public origin's rules; other paths go to `app` as they are. */
export async function servePublic(
  request: Request,
  app: (request: Request) => Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  if (!isPublicPath(url.pathname)) return app(request);
  const origin = request.headers.get("origin");
  const requestId = requestIdFrom(request.headers);
  if (
    request.method === "OPTIONS" &&
    request.headers.has("access-control-request-method") &&
    !OWN_PREFLIGHT.test(url.pathname)
  ) {
    const preflight = publicPreflight(origin);
    preflight.headers.set("x-request-id", requestId);
    return preflight;
  }
  const admitted = await admit(request, requestId);
  const answered = admitted instanceof Response ? admitted : await app(admitted);
  const response = new Response(answered.body, answered);
  response.headers.set("x-request-id", requestId);
  const cors = refusedPublicKeyOrigin(request, response) ? { vary: "Origin" } : publicCorsHeaders(origin);
  for (const [name, value] of Object.entries(cors)) {
    if (name === "vary") response.headers.set("vary", mergeVary(response.headers.get("vary"), value));
    else response.headers.set(name, value);
  }
  return response;
}
