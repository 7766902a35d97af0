/**
 * The identity service's error catalogue: every problem+json answer of this service is made from one
 * of these entries (`fail("EMAIL_TAKEN", "...")`). `specified` mirrors the spec's Errors table row by
 * row (test/structure/error-catalogues.unit.test.ts diffs the two); `beyondSpec` holds the codes the spec
 * leaves unnamed (its 423 and 502 rows have no code) or that our own operations add, each with why.
 */
import { CommonErrors, defineErrors, errorsOf, type Fail } from "../lib/problem";

export const specified = defineErrors({
  // 400
  INVALID_EMAIL: 400,
  BAD_EMAIL: 400,
  PASSWORD_TOO_WEAK: 400,
  PASSWORD_BREACHED: 400,
  BAD_ID: 400,
  BAD_ORG: 400,
  BAD_REQUEST: 400,
  BAD_ROLE: 400,
  ROLE_NOT_FOUND: 400,
  METHOD_NOT_AVAILABLE: 400,
  INVALID_PHONE: 400,
  SAME_ORG: 400,
  MODE_INVALID: 400,
  // 401
  INVALID_CREDENTIALS: 401,
  CODE_INVALID: 401,
  MFA_INVALID_CODE: 401,
  CHALLENGE_INVALID: 401,
  PASSKEY_CEREMONY_INVALID: 401,
  PASSKEY_INVALID: 401,
  PASSKEY_CLONE_SUSPECTED: 401,
  REFRESH_FAILED: 401,
  // 403
  EMAIL_NOT_VERIFIED_AT_LOGIN: { code: "EMAIL_NOT_VERIFIED", status: 403 },
  FORBIDDEN: 403,
  OWNER_ONLY: 403,
  OWNER_PROTECTED: 403,
  NOT_OWNER: 403,
  // 404
  NOT_FOUND: 404,
  NOT_MEMBER: 404,
  USER_NOT_FOUND: 404,
  EMAIL_NOT_FOUND: 404,
  PASSKEY_NOT_FOUND: 404,
  PHONE_VERIFICATION_NOT_FOUND: 404,
  TARGET_NOT_FOUND: 404,
  TRANSFER_NOT_FOUND: 404,
  // 409
  LAST_SITE_OWNER: 409,
  LAST_ORG_OWNER: 409,
  INVITATION_ALREADY_ACCEPTED: 409,
  PASSKEY_LIMIT_REACHED: 409,
  PASSKEY_ALREADY_REGISTERED: 409,
  LAST_STRONG_FACTOR: 409,
  EMAIL_ALREADY_ADDED: 409,
  EMAIL_LIMIT_REACHED: 409,
  EMAIL_TAKEN: 409,
  EMAIL_NOT_VERIFIED_FOR_PRIMARY: { code: "EMAIL_NOT_VERIFIED", status: 409 },
  EMAIL_IS_PRIMARY: 409,
  EMAIL_LAST_VERIFIED: 409,
  PASSWORD_NOT_SET: 409,
  TRANSFER_EXISTS: 409,
  NOT_PENDING: 409,
  // 428
  STEP_UP_REQUIRED: 428,
  MFA_NOT_ENROLLED: 428,
  // 429
  RATE_LIMITED: 429,
  TOO_MANY_ATTEMPTS: 429,
  // 500
  LOOKUP_FAILED: 500,
  // 501
  INVITES_DISABLED: 501,
  AUTHZ_UNAVAILABLE: 501,
  NOT_IMPLEMENTED: 501,
  PASSKEY_DISABLED: 501,
  SMS_DISABLED: 501,
  // 503
  REFRESH_UNAVAILABLE: 503,
  STEP_UP_UNAVAILABLE: 503,
  PASSWORD_CHECK_UNAVAILABLE: 503,
});

export const beyondSpec = defineErrors({
  /** The spec's 401 for a missing or invalid Bearer names no code: the platform's one (src/lib/bearer.ts). */
  UNAUTHENTICATED: CommonErrors.UNAUTHENTICATED.status,
  TOKEN_EXPIRED: CommonErrors.TOKEN_EXPIRED.status,
  METHOD_NOT_ALLOWED: CommonErrors.METHOD_NOT_ALLOWED.status,
  /** The spec's 423 (login, login start, refresh) names no code. */
  ACCOUNT_LOCKED: 423,
  /** The spec's 502 ("upstream failure of the SMS provider or sending step") names no code. */
  DELIVERY_FAILED: 502,
  SMS_DELIVERY_FAILED: 502,
  /** TOTP enrollment (addendum) while a confirmed factor exists. */
  TOTP_ALREADY_ENROLLED: 409,
  /** Organization creation (addendum): slug malformed or taken. */
  BAD_SLUG: 400,
  SLUG_TAKEN: 409,
  /** Transfer acceptance could not be applied in the site registry (fail closed, nothing changed). */
  TRANSFER_FAILED: 500,
  /**
   * Sign-in (password, login, second factor): every evaluation slot of the lockout guard stayed taken
   * for its bounded wait (config.ts LOCKOUT.waitSeconds). Never a lock; the client retries.
   */
  SIGN_IN_BUSY: 503,
  /** Organization SSO (issue 24 §1): the issuer URL is refused (not HTTPS, not public) or not an OpenID issuer. */
  SSO_ISSUER_INVALID: 400,
  /** Organization SSO: the provider's callback, code exchange or ID token was refused. */
  SSO_SIGN_IN_FAILED: 401,
  /** Organization SSO: a registration or link token unknown, used, expired or of a replaced configuration. */
  SSO_TOKEN_INVALID: 401,
  /** Organization SSO: the provider's address is not verified, or its domain is not proved for the organization. */
  SSO_DOMAIN_NOT_VOUCHED: 403,
  /** Organization SSO: the provider could not be reached or answered something unusable. */
  SSO_PROVIDER_UNAVAILABLE: 502,
  /**
   * Issue 24: a sign-in whose proof succeeded on an account in its deletion grace period; `details`
   * names the cancel operation and the end of the grace. Never answered before the proof.
   */
  ACCOUNT_PENDING_DELETION: 403,
  /**
   * OAuth consent (issue 37): the authorization request's client or redirect URI cannot be trusted, so the
   * error is shown on the consent page and never sent to the redirect URI (RFC 6749 §4.1.2.1).
   */
  OAUTH_CLIENT_INVALID: 400,
  OAUTH_REDIRECT_URI_INVALID: 400,
  /** OAuth consent: the client's metadata document could not be fetched (and no fresh copy is cached). */
  OAUTH_CLIENT_UNAVAILABLE: 502,
  /** OAuth consent: approve or deny without the consent's CSRF token. */
  CONSENT_CSRF_INVALID: 403,
  /** OAuth consent: already approved or denied, or past its 10 minutes. */
  CONSENT_DECIDED: 409,
  CONSENT_EXPIRED: 409,
  /** OAuth consent: a scope not requested, or not allowed by the person's role on the site now. */
  SCOPE_NOT_ALLOWED: 403,
  /** Readiness probe: a dependency ping failed (spec: 503). */
  NOT_READY: 503,
  PAYLOAD_TOO_LARGE: CommonErrors.PAYLOAD_TOO_LARGE.status,
  UNSUPPORTED_MEDIA_TYPE: CommonErrors.UNSUPPORTED_MEDIA_TYPE.status,
  INTERNAL_ERROR: CommonErrors.INTERNAL_ERROR.status,
});

export const IdentityErrors = { ...specified, ...beyondSpec };
export type IdentityErrorName = keyof typeof IdentityErrors;

const errors = errorsOf(IdentityErrors);

/** Throws the catalogue's error `name`; `options` is the wire `detail` or the full problem options. */
export const fail: Fail<IdentityErrorName> = errors.fail;
/** The catalogue's error `name`, for code that hands the error on instead of throwing it here. */
export const problem = errors.problem;
