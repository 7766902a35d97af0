/**
 * CORS at the edge. The dashboard API (`/api/*`) answers only allowlisted origins, with credentials
 * (cookies carry the session). Content's `/v1/*` is called from any site with a public key; which
 * origins may use a key is content's decision (403 there), so the edge reflects the origin without
 * credentials.
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
