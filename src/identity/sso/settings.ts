/**
 * Lifetimes and bounds of organization single sign-on (issue 24 §1; docs/decisions/sso.md). Numbers the
 * issue leaves open are decisions recorded there; keep both in step.
 */

/** An authorization request (state, PKCE verifier, nonce) can be completed this long. */
export const SSO_LOGIN_TTL_S = 10 * 60;
/** A verified sign-in waiting for registration or for the link code. */
export const SSO_PENDING_TTL_S = 15 * 60;
/** The browser-binding cookie of an authorization request in flight. */
export const SSO_BROWSER_COOKIE = "svc_sso";
export const SSO_COOKIE_PATH = "/api/v1/auth/sso";
/** The role an organization grants a person who joins through its provider. */
export const SSO_DEFAULT_ROLE = "org_member";
/** Vouched e-mail domains per organization. */
export const SSO_MAX_DOMAINS = 10;
/** Every request to a provider (DNS, discovery, JWKS, token) gives up after this long. */
export const SSO_FETCH_TIMEOUT_MS = 5000;
/** Largest provider answer read (discovery, JWKS, token response). */
export const SSO_FETCH_MAX_BYTES = 256 * 1024;
/** The label of the DNS TXT record proving an e-mail domain (the one sites derives for hosts). */
export const DOMAIN_PROOF_LABEL = "_platform-verify";
/** The session method of an SSO sign-in (`sessions.auth_method`). */
export const SSO_METHOD = "sso";
