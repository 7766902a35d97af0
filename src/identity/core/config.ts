/**
 * Lifetimes, limits and quotas of the identity service. Numbers the spec does not show are decisions
 * recorded in docs/decisions/identity.md; keep both in step.
 */
export const AUDIENCE = "site-platform";

/** Standard session: refresh token (and session row) valid 14 days from login, absolute across rotations. */
export const SESSION_TTL_S = 14 * 24 * 3600;
/** Trusted-device session (spec): 90 days. */
export const TRUSTED_SESSION_TTL_S = 90 * 24 * 3600;

export const PASSWORD_MIN_LENGTH = 12;
/** Upper bound so hashing work per request stays bounded. */
export const PASSWORD_MAX_LENGTH = 256;

export const LOGIN_CHALLENGE_TTL_S = 10 * 60;
export const LOGIN_CHALLENGE_MAX_FAILURES = 5;

export const RECOVERY_POOL_SIZE = 10;
export const MAX_EMAILS_PER_ACCOUNT = 10;
export const MAX_PASSKEYS_PER_ACCOUNT = 20;

/**
 * One-time codes: lifetime in seconds and attempts per code, by purpose. `link`: the code is also
 * e-mailed as an unguessable link token (not attempt-limited), and a new request does not retire the
 * earlier live codes, so a stranger's requests and wrong guesses cannot take the owner's way in.
 */
export const OTP_POLICY = {
  email_verify: { ttl: 24 * 3600, attempts: 5, link: false },
  email_add: { ttl: 10 * 60, attempts: 5, link: false },
  sensitive_action: { ttl: 10 * 60, attempts: 5, link: false },
  magic_link: { ttl: 15 * 60, attempts: 5, link: true },
  login_mfa: { ttl: 10 * 60, attempts: 5, link: false },
  password_reset: { ttl: 30 * 60, attempts: 5, link: true },
  phone_verify: { ttl: 10 * 60, attempts: 5, link: false },
  /** Issue 24 §1: proves the address of an existing account before its first SSO sign-in links it. */
  sso_link: { ttl: 15 * 60, attempts: 5, link: false },
  /** Issue 24: cancelling an account's deletion during its grace period (src/identity/account/). */
  account_restore: { ttl: 30 * 60, attempts: 5, link: false },
} as const;
export type OtpPurpose = keyof typeof OTP_POLICY;

/**
 * Account guard (lockout) against online password guessing, keyed by the account (an address without a
 * usable account by itself, so an unknown address behaves exactly like a known one), or by the owner's
 * device when the request carries its device cookie (guards.ts `passwordGuardKey`). 5 consecutive
 * confirmed failures lock for 1 minute; each further lock doubles up to 15 minutes; while locked nothing is
 * counted (an attacker cannot extend a lock); the level decays after 24 h without failures; a completed
 * sign-in (every factor), magic-link login or password reset clears it. Magic link and password reset are
 * never locked. A right password only gives its reservation back (docs/decisions/lockout.md). At most
 * `threshold` proofs are evaluated at once (failures plus reservations in flight); a further attempt
 * waits in line for a slot while the line moves, giving up (503 SIGN_IN_BUSY, never 423/429) after
 * `waitSeconds` without a slot granted or settled, or after `maxWaitSeconds` in all; a reservation never
 * settled expires after `leaseSeconds`.
 */
export const LOCKOUT = {
  threshold: 5,
  baseSeconds: 60,
  maxSeconds: 15 * 60,
  decaySeconds: 24 * 3600,
  waitSeconds: 10,
  maxWaitSeconds: 60,
  leaseSeconds: 20,
} as const;

/** Fixed-window quotas counted in the RateLimiter Durable Object: [limit, window seconds]. */
export const RATE_LIMITS = {
  signup_ip: [10, 3600],
  signup_email: [3, 3600],
  magic_ip: [10, 900],
  /** Per pair of address and client: a stranger's requests never spend the owner's quota. */
  magic_pair: [3, 900],
  reset_ip: [10, 900],
  reset_pair: [3, 900],
  /** Codes mailed per address and purpose to clients without the owner's device cookie (silent cap). */
  owner_code_mail: [10, 3600],
  login_ip: [60, 60],
  verify_ip: [30, 600],
  /** Typed-code verifications per pair of address and client (a link token is not guessable). */
  verify_pair: [10, 600],
  mfa_send_challenge: [5, 600],
  email_add_ip: [20, 3600],
  email_add_target: [3, 3600],
  email_add_author: [10, 3600],
  phone_start_user: [5, 3600],
  invite_resend_ip: [20, 3600],
  invite_resend_mailbox: [3, 3600],
  invite_accept_ip: [20, 600],
  step_up_send: [5, 600],
  step_up_verify_user: [10, 600],
  /** Issue 24 §1: SSO authorization requests opened per client (each writes a short-lived row). */
  sso_start_ip: [30, 600],
  /** Issue 24: codes that cancel an account's deletion, per client and per pair of address and client. */
  restore_ip: [10, 900],
  restore_pair: [3, 900],
} as const satisfies Record<string, readonly [number, number]>;
export type RateLimitName = keyof typeof RATE_LIMITS;

/**
 * An address proven through POST /auth/emails/verify signs in and recovers the account only this long
 * after its proof (unless the owner promotes it to primary with a code sent to the current primary):
 * a stolen access token can add and prove an attacker's address, but not use it before the owner, told
 * at once, removes it.
 */
export const ADDED_ADDRESS_COOLING_OFF_S = 72 * 3600;
/** The removal link in the notice of an added address works this long (7 days). */
export const DISOWN_TOKEN_TTL_S = 7 * 24 * 3600;
