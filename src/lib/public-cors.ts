/**
 * CORS of the public, key-authenticated paths (`/v1/*`, `/media/*`) of the one public origin. Content
 * answers them itself (a route of the public hostname reaches it without the gateway), and the gateway
 * applies the same rules when it forwards one, so both ways answer alike. Content's `/v1/*` is called
 * from any site with a public key; which origins may use a key is content's decision (403 there), so the
 * origin is reflected without credentials, except where content refused a `pk_` key's origin
 * (`refusedPublicKeyOrigin`): nothing grants what content refused, so that page cannot read the answer.
 */
export const EXPOSED_HEADERS = [
  "ETag",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "Idempotency-Replayed",
  "X-Request-Id",
  "Location",
  "X-Bookmark",
  // An MCP client in a browser reads the 401's challenge (RFC 9728 §5.1: where the resource's metadata is).
  "WWW-Authenticate",
].join(", ");
export const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-None-Match",
  "X-Step-Up-Code",
  "X-Request-Id",
  "X-Bookmark",
  // The MCP transport's headers (`/v1/mcp`, 2025-11-25 and 2026-07-28 revisions).
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
].join(", ");
export const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/** The key-authenticated API and the media CDN stand-in: the paths content answers on the public origin. */
export function isPublicPath(pathname: string): boolean {
  return pathname.startsWith("/v1/") || pathname.startsWith("/media/");
}

/** CORS headers of a public path's answer to `origin` (none without an Origin). */
export function publicCorsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin",
  };
}

/**
 * The OAuth paths an MCP client in a browser calls (issue 37, docs/decisions/oauth-agents.md): discovery
 * (the authorization server's and the resource's metadata, the keys), registration, the token endpoint and
 * revocation. They take no cookie (a client authenticates with its PKCE verifier, its secret or a token in
 * the body or `Authorization`), so any origin may read them, without credentials, as RFC 8414 §3 and the MCP
 * authorization spec expect of browser-based clients. The consent API and page stay the dashboard's.
 */
const OAUTH_PUBLIC_PATHS = new Set([
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/v1/mcp",
  "/.well-known/openid-configuration",
  "/.well-known/jwks.json",
  "/api/v1/auth/oauth/register",
  "/api/v1/auth/oauth/token",
  "/api/v1/auth/oauth/revoke",
]);

/** Whether the edge answers `pathname` with the public CORS rules: the public API or an OAuth path above. */
export function isPublicCorsPath(pathname: string): boolean {
  return isPublicPath(pathname) || OAUTH_PUBLIC_PATHS.has(pathname);
}

/** The preflight of a public path: every method and header the public API takes, for 600 s. */
export function publicPreflight(origin: string | null): Response {
  const headers = publicCorsHeaders(origin);
  if (headers["access-control-allow-origin"]) {
    headers["access-control-allow-methods"] = ALLOWED_METHODS;
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

/** `existing` Vary tokens plus `add`'s, each once (case-insensitive), in order. */
export function mergeVary(existing: string | null, add: string): string {
  const tokens = new Map<string, string>();
  for (const token of `${existing ?? ""},${add}`.split(",")) {
    const t = token.trim();
    if (t) tokens.set(t.toLowerCase(), t);
  }
  return [...tokens.values()].join(", ");
}
