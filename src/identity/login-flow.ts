/** Password proof shared by the one-step login and the phased login start. */
import type { AppContext } from "./context";
import { clientIp } from "./context";
import { deviceCookie, knownDevice } from "./devices";
import { fail, problem } from "./errors";
import { enforceRateLimit, lockedError, passwordGuardKey, reservePasswordAttempt } from "./guards";
import { hashPassword, verifyPassword } from "./password";
import { findLoginCandidate, upgradePasswordHash } from "./store/accounts";

export const INVALID_CREDENTIALS = () =>
  problem("INVALID_CREDENTIALS", "The e-mail or the password is wrong.");

/**
 * Proves the password for an address. Unknown address, address not proven on the account, missing
 * password and wrong password all spend one lookup, one guard reservation and one scrypt and answer the
 * same 401; only after the password matched may the answer say EMAIL_NOT_VERIFIED (403) or that the
 * account is locked (423). The attempt counts on the account (all its addresses together), or on the
 * owner's own device when the request carries its device cookie (see guards.ts `passwordGuardKey`).
 */
export async function provePassword(c: AppContext, address: string, password: string) {
  await enforceRateLimit(c.env, "login_ip", clientIp(c));
  const candidate = await findLoginCandidate(c.env.DB, address);
  const account = candidate?.verified
    ? {
        userId: candidate.user_id,
        deviceId: await knownDevice(c.env.OTP_PEPPER, deviceCookie(c), candidate.user_id),
      }
    : null;
  const guardKey = passwordGuardKey(address, account);
  await reservePasswordAttempt(c.env, guardKey);
  const check = await verifyPassword(password, candidate?.password_hash ?? null);
  if (!candidate || !check.ok) throw INVALID_CREDENTIALS();
  if (candidate.status === "pending_verification") {
    fail("EMAIL_NOT_VERIFIED_AT_LOGIN", "Confirm your e-mail address first.");
  }
  if (!candidate.verified) throw INVALID_CREDENTIALS();
  if (candidate.status === "locked") throw lockedError(3600);
  if (candidate.status !== "active") fail("FORBIDDEN", "This account is disabled.");
  if (check.needsRehash && candidate.password_hash) {
    await upgradePasswordHash(
      c.env.DB,
      candidate.user_id,
      candidate.password_hash,
      await hashPassword(password),
    );
  }
  return { userId: candidate.user_id, address, guardKey, epoch: candidate.credential_epoch };
}
