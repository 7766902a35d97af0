import type { ApiError } from "../../lib/problem";
import { RATE_LIMITS, type RateLimitName } from "../core/config";
import { sha256Hex } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { isLinkToken } from "../messaging/otp";

/*
 * Whose failures count where (threat and sources: NIST SP 800-63B §5.2.2 throttling; OWASP Authentication
 * Cheat Sheet, "Protect against automated attacks": per-IP limits alone miss distributed guessing, per-
 * account limits alone let a stranger lock the owner out, so both are kept and the owner's devices are
 * told apart by the device cookie, OWASP "Slow down online guessing attacks with device cookies").
 */

function hitQuota(env: Env, name: RateLimitName, key: string) {
  const [limit, window] = RATE_LIMITS[name];
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`${name}:${key}`)).hit(limit, window);
}

/** Counts one hit on a quota; false when the quota is spent (for quotas that never answer 429). */
export async function hitRateLimit(env: Env, name: RateLimitName, key: string): Promise<boolean> {
  return (await hitQuota(env, name, key)).allowed;
}

/** Counts one hit on a quota; throws 429 RATE_LIMITED with Retry-After when the quota is spent. */
export async function enforceRateLimit(env: Env, name: RateLimitName, key: string): Promise<void> {
  const decision = await hitQuota(env, name, key);
  if (!decision.allowed) {
    fail("RATE_LIMITED", {
      detail: "Too many requests; retry later.",
      headers: { "Retry-After": String(decision.retryAfter) },
    });
  }
}

/**
 * Whose failures a sign-in attempt counts on (the lockout design in docs/decisions/identity.md): the owner's own
 * device when the request carries its device cookie; otherwise the account holding the address (so every
 * address of an account shares its 5 tries); an address with no usable account is keyed by itself, so an
 * unknown address behaves exactly like a known one. `mailbox|<user>` counts the second factor of a
 * challenge opened by a magic link (apart from the password guards, so a stranger's wrong passwords never
 * block the owner's magic link plus second factor).
 */
export type GuardKey = `device|${string}` | `account|${string}` | `address|${string}` | `mailbox|${string}`;

export function passwordGuardKey(
  address: string,
  account: { userId: string; deviceId: string | null } | null,
): GuardKey {
  return account ? accountGuardKey(account.userId, account.deviceId) : `address|${address}`;
}

/** The guard of a known account: its owner's device when the request carries the device cookie. */
export function accountGuardKey(userId: string, deviceId: string | null): GuardKey {
  return deviceId ? `device|${userId}|${deviceId}` : `account|${userId}`;
}

/**
 * Quotas of a code verification: per client IP, and for a typed code per pair of address and client (a
 * stranger's wrong guesses never spend the owner's quota; each code still takes at most 5 guesses in
 * all). A link token carries 256 bits, so only the IP quota applies to it.
 */
export async function enforceVerifyQuotas(env: Env, ip: string, address: string, code: string) {
  await enforceRateLimit(env, "verify_ip", ip);
  if (!isLinkToken(code)) await enforceRateLimit(env, "verify_pair", `${address}|${ip}`);
}

export function guardStub(env: Env, key: GuardKey) {
  return sha256Hex(`guard|${key}`).then((name) => env.ACCOUNT_GUARD.get(env.ACCOUNT_GUARD.idFromName(name)));
}

export function lockedError(retryAfter: number): ApiError {
  return problem("ACCOUNT_LOCKED", {
    detail:
      "Too many failed attempts from unknown devices; try again later, sign in from a device you used before, or use a magic link.",
    headers: { "Retry-After": String(retryAfter) },
  });
}

export function busyError(retryAfter: number): ApiError {
  return problem("SIGN_IN_BUSY", {
    detail: "Too many sign-in attempts are being checked at once; retry in a moment.",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/**
 * Runs one sign-in proof under a reservation on the guard of `key` (AccountGuard's protocol): 423 while the
 * guard is locked, 503 SIGN_IN_BUSY when no slot freed within the bounded wait. `evaluate` marks the proof
 * failed through `failed()` before it throws or returns; anything else (a right proof, a refusal that is
 * not a wrong guess, an exception) gives the slot back; a request that dies before settling leaves a lease
 * that expires (LOCKOUT.leaseSeconds). The one place a failure is confirmed: `guard.fail` answers a
 * `FailureOutcome` (`lockedFor` > 0 when this failure armed the lock), the hook for sign-in events.
 */
export async function guardedProof<T>(
  env: Env,
  key: GuardKey,
  evaluate: (failed: () => void) => Promise<T>,
): Promise<T> {
  const guard = await guardStub(env, key);
  const reservation = await guard.reserve();
  if (reservation.kind === "locked") throw lockedError(reservation.retryAfter);
  if (reservation.kind === "busy") throw busyError(reservation.retryAfter);
  const verdict = { failed: false };
  try {
    return await evaluate(() => {
      verdict.failed = true;
    });
  } finally {
    if (verdict.failed) await guard.fail(reservation.lease);
    else await guard.release(reservation.lease);
  }
}

/** A completed sign-in (every factor proven) on this key: forgets its confirmed failures. */
export async function clearPasswordGuard(env: Env, key: GuardKey): Promise<void> {
  await (await guardStub(env, key)).clear();
}
