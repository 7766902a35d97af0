/**
 * CORS at the edge. The dashboard API (`/api/*`) answers only allowlisted origins, with credentials
 * (cookies carry the session). Content's `/v1/*` is called from any site with a public key; which
 * origins may use a key is content's decision (403 there), so the edge reflects the origin without
 * credentials, except where content refused a `pk_` key's origin (`refusedPublicKeyOrigin`): the edge never
 * grants what content refused, so that page cannot read the answer, as on content's own address.
 */
const EXPOSED = [
  "ETag",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "Idempotency-Replayed",
  "X-Request-Id",
  "Location",
].join(", ");
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-None-Match",
  "X-Step-Up-Code",
  "X-Request-Id",
].join(", ");
const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

export function corsHeaders(
  env: GatewayEnv,
  pathname: string,
  origin: string | null,
): Record<string, string> {
  if (!origin) return {};
  if (pathname.startsWith("/v1/") || pathname.startsWith("/media/")) {
    return {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": EXPOSED,
      vary: "Origin",
    };
  }
  const allowed = env.CORS_ORIGINS.split(",").map((o) => o.trim());
  if (!allowed.includes(origin)) return { vary: "Origin" };
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": EXPOSED,
    vary: "Origin",
  };
}

export function preflight(env: GatewayEnv, pathname: string, origin: string | null): Response {
  const headers = corsHeaders(env, pathname, origin);
  if (headers["access-control-allow-origin"]) {
    headers["access-control-allow-methods"] = METHODS;
    headers["access-control-allow-headers"] = ALLOWED_HEADERS;
    headers["access-control-max-age"] = "600";
  }
  return new Response(null, { status: 204, headers });
}

/** Whether a `/v1` request presents a `pk_` key, as content reads it (the Authorization header wins). */
function presentsPublicKey(url: URL, headers: Headers): boolean {
  const authorization = headers.get("authorization");
  if (authorization !== null) return /^Bearer\s+pk_/i.test(authorization);
  return url.searchParams.get("key")?.startsWith("pk_") ?? false;
}

/**
 * Content refused the request's origin for its `pk_` key: its answer is chosen by the Origin (`Vary:
 * Origin`) and grants none (no `Access-Control-Allow-Origin`). An allowed origin gets content's grant.
 */
export function refusedPublicKeyOrigin(request: Request, response: Response): boolean {
  const url = new URL(request.url);
  if (!url.pathname.startsWith("/v1/") || !presentsPublicKey(url, request.headers)) return false;
  if (response.headers.has("access-control-allow-origin")) return false;
  return /(^|,)\s*origin\s*(,|$)/i.test(response.headers.get("vary") ?? "");
}
