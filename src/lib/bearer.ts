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
 *
 * An OAuth protected resource (content's `/v1/mcp`, docs/decisions/oauth-agents.md) adds RFC 9728 §5.1's
 * `resource_metadata` to the same challenge (`atResource`), so a client discovers its authorization server
 * from any 401 there; and refuses a token lacking a scope with `insufficientScopeChallenge` (RFC 6750 §3.1).
 */
import { ApiError, CommonErrors, errorsOf } from "./problem";

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

/** The 401 `error` (from `bearerRefusal`) with `resource_metadata="<url>"` added to its challenge; other errors as they are. */
export function atResource(error: unknown, resourceMetadata: string): unknown {
  if (!(error instanceof ApiError) || error.status !== 401) return error;
  const challenge = error.headers?.["www-authenticate"];
  if (!challenge?.startsWith("Bearer ")) return error;
  return problem(error.code === "TOKEN_EXPIRED" ? "TOKEN_EXPIRED" : "UNAUTHENTICATED", {
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    headers: {
      ...error.headers,
      "www-authenticate": `${challenge}, resource_metadata="${resourceMetadata}"`,
    },
  });
}

/**
 * RFC 6750 §3.1's challenge of a token that lacks a scope (HTTP 403): `scope` names the scopes the operation
 * needs (space-separated), `resource_metadata` where the resource's metadata is (RFC 9728 §5.1), so an
 * OAuth client asks the person for them (the MCP authorization spec's step-up).
 */
export function insufficientScopeChallenge(scopes: readonly string[], resourceMetadata: string): string {
  return `Bearer realm="${BEARER_REALM}", error="insufficient_scope", scope="${scopes.join(" ")}", resource_metadata="${resourceMetadata}", error_description="The access token lacks a scope this operation requires."`;
}

/**
 * Whether jose refused a token for its `exp` alone. jose checks the claims only after the signature, so
 * this is true of the platform's own tokens only: a forged one fails its signature first.
 */
export function expiredJwt(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "ERR_JWT_EXPIRED";
}
