/**
 * The one place identity reads a credential from a cookie is `POST /auth/refresh` (`svc_refresh`). A cookie
 * rides along on requests other sites make the browser send, so a refresh authenticated by the cookie is
 * refused when the browser says the request came from elsewhere: an `Origin` that is not this request's
 * own origin, or `Sec-Fetch-Site` `cross-site` / `same-site` (a sibling subdomain is another origin too).
 * Server callers send no such headers and put the token in the body; same-origin pages send their own
 * origin. Stops: a page on another origin (or a sibling subdomain that SameSite=Lax lets the cookie reach)
 * rotating the victim's session, which would break the victim's next refresh or, with a readable
 * response under a loose CORS rule, hand over fresh tokens.
 *
 * Sources: cross-site request forgery against cookie-authenticated endpoints (OWASP CSRF Prevention Cheat
 * Sheet: "Verifying Origin with standard headers" and "Fetch Metadata headers"); `Origin` per RFC 6454 §7
 * and the Fetch standard; `Sec-Fetch-Site` per W3C Fetch Metadata Request Headers; SameSite=Lax per
 * draft-ietf-httpbis-rfc6265bis §8.8, which explains why Lax alone does not stop a same-site sibling
 * (the reason `same-site` is refused here too). RFC 9700 §4.13 and §2.2.2 keep refresh tokens away from
 * script; the cookie is HttpOnly for that reason.
 */
const FOREIGN_FETCH_SITES = new Set(["cross-site", "same-site"]);

export function isForeignBrowserRequest(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && FOREIGN_FETCH_SITES.has(site.toLowerCase())) return true;
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  return origin !== new URL(request.url).origin;
}
