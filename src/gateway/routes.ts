/** The route table of the edge: which service answers a path. Paths are forwarded unchanged. */
export type Upstream = "identity" | "content" | "sites";

export interface Route {
  upstream: Upstream;
  /** Routes under the dashboard API need a verified staff Bearer at the edge. */
  requiresSession: boolean;
  /**
   * Not required by the edge, but a valid Bearer sent is verified and its identity forwarded (signed);
   * without one, or with an invalid one, the request goes on without identity and the service answers.
   */
  sessionIfSent?: true;
}

/**
 * A site's API keys, forms and webhooks are administered in content, which owns them; so are its posts,
 * media, categories, tags, authors and leads on the dashboard (issue 34: a signed-in person edits as
 * themselves, with the signed edge headers).
 */
const CONTENT_SITE_ADMIN =
  /^\/api\/v1\/sites\/[^/]+\/(?:api-keys|forms|webhooks|posts|media|categories|tags|authors|leads)(\/|$)/;

/**
 * Identity's probes and metrics under the edge prefix: a service's probes are answered on its own address
 * only (the edge has its own /health and /ready), so a client cannot make identity ping D1 and its
 * Durable Objects, or read its counters, from the internet.
 */
const IDENTITY_PROBES = /^\/api\/v1\/auth\/(health|ready|metrics)\/?$/i;

/**
 * RFC 9728 metadata of content's `/v1/mcp` (issue 37): content owns the resource and its scopes, so it
 * answers these two paths; every other `/.well-known/*` (OpenID, OAuth server metadata, JWKS) is identity's.
 */
const PROTECTED_RESOURCE_METADATA = new Set([
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/v1/mcp",
]);

export function routeFor(pathname: string): Route | null {
  if (IDENTITY_PROBES.test(pathname)) return null;
  if (pathname.startsWith("/api/v1/auth/") || pathname === "/api/v1/auth") {
    // Identity verifies its own Bearer (and most of its operations are public).
    return { upstream: "identity", requiresSession: false };
  }
  if (PROTECTED_RESOURCE_METADATA.has(pathname)) return { upstream: "content", requiresSession: false };
  if (pathname.startsWith("/.well-known/")) return { upstream: "identity", requiresSession: false };
  // The hosted sign-in and account pages (identity serves them; their scripts call the API above).
  if (pathname === "/auth" || pathname.startsWith("/auth/"))
    return { upstream: "identity", requiresSession: false };
  if (CONTENT_SITE_ADMIN.test(pathname)) return { upstream: "content", requiresSession: true };
  // The renderer resolves which site serves a host; sites answers it with a public view of live sites.
  if (pathname === "/api/v1/sites/by-host") return { upstream: "sites", requiresSession: false };
  // Development only: sites answers 404 unless DEV_OUTBOX=true (never deployed), like identity's outbox;
  // there it needs a member's session (401 without), so the edge forwards one when sent but refuses
  // nothing itself: a deploy answers 404 whatever is sent.
  if (pathname === "/api/v1/sites/__dev/prove-host")
    return { upstream: "sites", requiresSession: false, sessionIfSent: true };
  if (pathname.startsWith("/api/v1/")) return { upstream: "sites", requiresSession: true };
  // Content's key-authenticated API and the local stand-in for the media CDN.
  if (pathname.startsWith("/v1/") || pathname.startsWith("/media/"))
    return { upstream: "content", requiresSession: false };
  return null;
}
