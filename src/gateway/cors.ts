/**
 * CORS at the edge. The dashboard API (`/api/*`) answers only allowlisted origins, with credentials
 * (cookies carry the session). The public paths (`/v1/*`, `/media/*`) follow src/lib/public-cors.ts, the
 * rules content applies when a route of the public hostname reaches it directly; so do the OAuth paths an
 * MCP client in a browser calls (discovery, registration, token, revocation: no cookie, any origin).
 */
import {
  ALLOWED_HEADERS,
  ALLOWED_METHODS,
  EXPOSED_HEADERS,
  isPublicCorsPath,
  publicCorsHeaders,
  publicPreflight,
} from "../lib/public-cors";

export function corsHeaders(
  env: GatewayEnv,
  pathname: string,
  origin: string | null,
): Record<string, string> {
  if (!origin) return {};
  if (isPublicCorsPath(pathname)) return publicCorsHeaders(origin);
  const allowed = env.CORS_ORIGINS.split(",").map((o) => o.trim());
  if (!allowed.includes(origin)) return { vary: "Origin" };
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin",
  };
}

/**
 * The dashboard's origins (`CORS_ORIGINS`) may also send `If-Match` (a post's PATCH and a revision's restore
 * on the dashboard routes); the public paths never take it from a browser (no `ck_` key in pages).
 */
const DASHBOARD_ALLOWED_HEADERS = `${ALLOWED_HEADERS}, If-Match`;

export function preflight(env: GatewayEnv, pathname: string, origin: string | null): Response {
  if (isPublicCorsPath(pathname)) return publicPreflight(origin);
  const headers = corsHeaders(env, pathname, origin);
  if (headers["access-control-allow-origin"]) {
    headers["access-control-allow-methods"] = ALLOWED_METHODS;
    headers["access-control-allow-headers"] = DASHBOARD_ALLOWED_HEADERS;
    headers["access-control-max-age"] = "600";
  }
  return new Response(null, { status: 204, headers });
}
