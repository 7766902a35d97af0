/**
 * The platform's one answer to a request without a usable credential, on every service (identity's access
 * tokens, the gateway's session routes, content's API keys): 401 problem+json with a `WWW-Authenticate`
 * challenge of RFC 6750 §3.
 * - `missing`: no credential at all. `UNAUTHENTICATED`, `Bearer realm="site-platform"`, and no `error`
 *   (§3.1: a request that lacks any authentication information gets no error code).
 * - `invalid`: a credential that does not verify (malformed, forged, unknown, revoked, its session ended).
 *   `UNAUTHENTICATED`, `error="invalid_token"`.
 * - `expired`: an access token whose signature and claims verify but whose `exp` has passed (never said of
 *   a token that fails its signature, so it tells nothing to a forger). `TOKEN_EXPIRED`,
 *   `error="invalid_token"` with an `error_description`: the client refreshes instead of signing out.
 */
import { type ApiError, CommonErrors, errorsOf } from "./problem";

const { problem } = errorsOf(CommonErrors);

const BEARER_REALM = "site-platform";

export type BearerFault = "missing" | "invalid" | "expired";

const DESCRIPTIONS: Record<Exclude<BearerFault, "missing">, string> = {
  invalid: "The credential is not valid.",
  expired: "The access token expired; refresh it.",
};

/** The `WWW-Authenticate` value for `fault`. */
function bearerChallenge(fault: BearerFault): string {
  const realm = `Bearer realm="${BEARER_REALM}"`;
  if (fault === "missing") return realm;
  return `${realm}, error="invalid_token", error_description="${DESCRIPTIONS[fault]}"`;
}

const DETAILS: Record<BearerFault, string> = {
  missing: "A Bearer credential is required.",
  invalid: "The Bearer credential is not valid.",
  expired: "The access token expired; refresh it and repeat the request.",
};

/**
 * The 401 for `fault`: `detail` says what was expected (defaults above; an expired token always gets its
 * own, which says to refresh), the challenge says why.
 */
export function bearerRefusal(fault: BearerFault, detail?: string): ApiError {
  return problem(fault === "expired" ? "TOKEN_EXPIRED" : "UNAUTHENTICATED", {
    detail: detail && fault !== "expired" ? detail : DETAILS[fault],
    headers: { "www-authenticate": bearerChallenge(fault) },
  });
}

/**
 * Whether jose refused a token for its `exp` alone. jose checks the claims only after the signature, so
 * this is true of the platform's own tokens only: a forged one fails its signature first.
 */
export function expiredJwt(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "ERR_JWT_EXPIRED";
}
