import { type Context, Hono } from "hono";
import { routePath } from "hono/route";
import { bearerRefusal } from "../lib/bearer";
import { bodyCapDetail, publicBodyCap } from "../lib/body-caps";
import { readCappedBytes } from "../lib/capped-body";
import { asciiJson, EDGE_CONTROL_HEADERS, EDGE_HEADER_NAMES, EDGE_HEADERS } from "../lib/edge";
import { signEdgeHeaders } from "../lib/edge-trust";
import { requestIdFrom, requestLogger, routeLabel } from "../lib/log";
import { recordRequest, useMetrics } from "../lib/metrics";
import { handleError, notFoundResponse } from "../lib/problem";
import { mergeVary, refusedPublicKeyOrigin } from "../lib/public-cors";
import {
  continueTrace,
  currentTraceparent,
  formatTraceparent,
  runInTrace,
  setTraceparent,
  TRACEPARENT_HEADER,
} from "../lib/trace";
import { corsHeaders, preflight } from "./cors";
import { devMail } from "./dev-mail";
import { devMetrics } from "./dev-metrics";
import { registerDocs } from "./docs";
import { forgetEdgeContext, loadEdgeContext } from "./edge-context";
import { fail } from "./errors";
import { type Route, routeFor, type Upstream } from "./routes";

import { verifyAccessToken } from "./tokens";

type Env = GatewayEnv;

function upstreamBinding(env: Env, upstream: Upstream): Fetcher {
  return upstream === "identity" ? env.IDENTITY : upstream === "content" ? env.CONTENT : env.SITES;
}

function bearerOf(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

/** A dashboard access token is a JWT; `ck_`/`pk_` API keys go to content untouched. */
function looksLikeJwt(token: string): boolean {
  return token.split(".").length === 3;
}

/**
 * After a successful write to identity, forgets the edge context of the user whose VERIFIED token made
 * it, so their change works on their next request. An unverified `sub` would let anyone evict any user's
 * entry (a fresh identity lookup and a scan of the whole cache per forged request).
 */
async function forgetCallerContext(env: Env, headers: Headers) {
  const token = bearerOf(headers);
  if (!token || !looksLikeJwt(token)) return;
  const verified = await verifyAccessToken(env, token);
  if (verified && verified !== "expired") forgetEdgeContext(verified.userId);
}

/**
 * The headers a service sees: the client's edge headers are removed (a forged X-Org-Memberships must
 * never reach a service), then set again only from the verified identity (signed in `forwardRequest`).
 */
async function forwardHeaders(env: Env, request: Request, requestId: string, route: Route) {
  const headers = new Headers(request.headers);
  for (const name of [...EDGE_HEADER_NAMES, ...EDGE_CONTROL_HEADERS]) headers.delete(name);
  headers.set("x-request-id", requestId);
  // The gateway's span is the service's parent (a client's traceparent is never passed on as it came).
  headers.delete(TRACEPARENT_HEADER);
  const traceparent = currentTraceparent();
  if (traceparent) headers.set(TRACEPARENT_HEADER, traceparent);
  // The scheme the client really used (services set Secure cookies by it); never the client's claim.
  headers.set("x-forwarded-proto", new URL(request.url).protocol.replace(":", ""));

  // Only dashboard routes read the edge identity; elsewhere (identity verifies its own Bearer, content
  // authenticates API keys, by-host is public) resolving it would be a wasted verify and RPC per request.
  // A route with `sessionIfSent` (the development host proof) forwards a valid session and refuses
  // nothing itself: without one the service answers (404 in a deploy, 401 in development).
  if (!route.requiresSession && !route.sessionIfSent) return headers;
  const token = bearerOf(request.headers);
  if (!token || !looksLikeJwt(token)) {
    if (!route.requiresSession) return headers;
    const fault = request.headers.has("authorization") ? "invalid" : "missing";
    throw bearerRefusal(fault, "A valid Bearer access token is required.");
  }
  const verified = await verifyAccessToken(env, token);
  if (verified === "expired") {
    if (!route.requiresSession) return headers;
    throw bearerRefusal("expired");
  }
  const context = verified ? await loadEdgeContext(env, verified.userId, verified.sessionId) : null;
  if (!verified || !context?.session_active) {
    if (!route.requiresSession) return headers;
    throw bearerRefusal("invalid", "A valid Bearer access token is required.");
  }
  headers.set(EDGE_HEADERS.userId, context.user_id);
  headers.set(EDGE_HEADERS.sessionId, verified.sessionId);
  headers.set(EDGE_HEADERS.sessionKind, context.session_kind);
  headers.set(EDGE_HEADERS.orgMemberships, asciiJson(context.org_memberships));
  headers.set(EDGE_HEADERS.siteMemberships, asciiJson(context.site_memberships));
  if (context.operator) headers.set(EDGE_HEADERS.platformOperator, context.operator);
  return headers;
}

/**
 * The largest body the edge accepts: src/lib/body-caps.ts (9 MiB, 12 MiB for `/v1/mcp`). Bodies are read
 * whole so a service that answers before reading one never leaves the client's stream dangling.
 */
async function readBody(request: Request): Promise<Uint8Array | null> {
  if (request.method === "GET" || request.method === "HEAD" || !request.body) return null;
  const cap = publicBodyCap(new URL(request.url).pathname);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > cap) fail("PAYLOAD_TOO_LARGE", bodyCapDetail(cap));
  const body = await readCappedBytes(request.body, cap);
  if (!body) fail("PAYLOAD_TOO_LARGE", bodyCapDetail(cap));
  return body;
}

/**
 * The request a service gets. The body goes with the length read here, never the client's framing (a
 * streamed upload comes chunked, and the runtime would pass a client's wrong Content-Length on as it is).
 * On session routes the edge headers are signed for `route.upstream` only and over this very body (its
 * SHA-256 when it is JSON up to 1 MiB, else its length): captured on its way, the request cannot be
 * replayed to another service or with another body (src/lib/edge-trust.ts). Identity is checked before
 * the body is read, so an anonymous caller's body costs nothing.
 */
async function forwardRequest(env: Env, request: Request, requestId: string, route: Route): Promise<Request> {
  const headers = await forwardHeaders(env, request, requestId, route);
  const body = await readBody(request);
  headers.delete("transfer-encoding");
  if (body) headers.set("content-length", String(body.byteLength));
  else headers.delete("content-length");
  if (route.requiresSession || headers.has(EDGE_HEADERS.userId)) {
    const forward = { service: route.upstream, method: request.method, url: request.url, body };
    await signEdgeHeaders(env.EDGE_HMAC_SECRET, forward, headers);
  }
  return new Request(request.url, { method: request.method, headers, body, redirect: "manual" });
}

const app = new Hono<{ Bindings: Env; Variables: { requestId: string } }>();

/**
 * Every request runs in a trace (src/lib/trace.ts): the client's valid `traceparent` continued under the
 * gateway's own span, else a new one. The services get the gateway's span as their parent; the answer
 * carries the gateway's `traceparent`. Each answer is measured by the gateway's route (`forward:<service>`
 * for what a service answered, whose own `request` metric names its route pattern).
 */
app.use("*", async (c, next) => {
  useMetrics("gateway", c.env);
  const trace = continueTrace(c.req.header(TRACEPARENT_HEADER));
  const started = Date.now();
  await runInTrace(trace, next);
  if (!c.req.path.startsWith("/__dev/")) {
    recordRequest(gatewayRoute(c), c.req.method, c.res.status, Date.now() - started);
  }
  setTraceparent(c, formatTraceparent(trace));
});

/** The gateway's route of an answer: its own route, or `forward:<service>` for what a service answered. */
function gatewayRoute(c: Context): string {
  const upstream = routeFor(c.req.path)?.upstream;
  const route = routeLabel(routePath(c));
  return route === "unmatched" && upstream ? `forward:${upstream}` : route;
}

app.use("*", async (c, next) => {
  const requestId = requestIdFrom(c.req.raw.headers);
  c.set("requestId", requestId);
  // The request's logger (`c.get("log")`) and its one line: its failure or `request_done`.
  await requestLogger("gateway", gatewayRoute)(c, next);
  c.res.headers.set("x-request-id", requestId);
  const origin = c.req.header("origin") ?? null;
  const refused = refusedPublicKeyOrigin(c.req.raw, c.res);
  const cors = refused ? { vary: "Origin" } : corsHeaders(c.env, c.req.path, origin);
  for (const [name, value] of Object.entries(cors)) {
    if (name === "vary") c.res.headers.set("vary", mergeVary(c.res.headers.get("vary"), value));
    else c.res.headers.set(name, value);
  }
});

app.get("/health", (c) => c.json({ status: "ok" }));

app.get("/ready", async (c) => {
  const names: Upstream[] = ["identity", "content", "sites"];
  const results = await Promise.all(
    names.map(async (name) => {
      try {
        const res = await upstreamBinding(c.env, name).fetch("https://internal/ready");
        return [name, res.status === 200] as const;
      } catch {
        return [name, false] as const;
      }
    }),
  );
  const services = Object.fromEntries(results.map(([name, ok]) => [name, ok ? "ready" : "not_ready"]));
  const ready = results.every(([, ok]) => ok);
  return c.json(
    { status: ready ? "ready" : "not_ready", services: { gateway: "ready", ...services } },
    ready ? 200 : 503,
  );
});

// The API references of the three services (src/gateway/docs.ts).
registerDocs(app);
app.get("/__dev/mail", (c) => devMail(c.env.IDENTITY));

// Development only: every service's kept metric points, aggregated (src/gateway/dev-metrics.ts).
app.get("/__dev/metrics", (c) => devMetrics(c.env, new URL(c.req.url)));

app.all("*", async (c) => {
  const url = new URL(c.req.url);
  const origin = c.req.header("origin") ?? null;
  if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
    return preflight(c.env, url.pathname, origin);
  }
  const route = routeFor(url.pathname);
  if (!route) return notFoundResponse();
  const forwarded = await forwardRequest(c.env, c.req.raw, c.get("requestId"), route);
  const res = await upstreamBinding(c.env, route.upstream).fetch(forwarded);
  if (route.upstream === "identity" && c.req.method !== "GET" && res.ok) {
    await forgetCallerContext(c.env, c.req.raw.headers);
  }
  // Re-wrap so the edge can add its own headers (service responses may be immutable).
  return new Response(res.body, res);
});

app.onError(handleError);

export default app;
