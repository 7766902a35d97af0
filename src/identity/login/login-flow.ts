/** Password proof shared by the one-step login and the phased login start. */
import { refuseInactive } from "../account/deletion";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { findLoginCandidate, upgradePasswordHash } from "../signup/accounts-store";
import { hashPassword, verifyPassword } from "../signup/password";
import { knownDevice } from "./devices";
import { accountGuardKey, enforceRateLimit, guardedProof, lockedError, passwordGuardKey } from "./guards";

export const INVALID_CREDENTIALS = () =>
  problem("INVALID_CREDENTIALS", "The e-mail or the password is wrong.");

/**
 * A further proof evaluated under the password's reservation (the one-step login's TOTP code): it calls
 * `failed()` before throwing when the proof is wrong (a confirmed failure); any other throw is a refusal
 * that is not a wrong guess.
 */
export type ExtraProof = (userId: string, failed: () => void) => Promise<void>;

/**
 * Proves the password for an address. Unknown address, address not proven on the account, missing
 * password and wrong password all spend one lookup, one guard reservation confirmed as a failure and one
 * scrypt, and answer the same 401; only after the password matched may the answer say EMAIL_NOT_VERIFIED
 * (403) or that the account is locked (423). The attempt counts on the account (all its addresses
 * together), or on the owner's own device when the request carries its device cookie (see guards.ts
 * `passwordGuardKey`). A right password (with a right `extra` proof) only gives its reservation back.
 */
export async function provePassword(
  env: Env,
  services: Pick<Services, "request">,
  address: string,
  password: string,
  extra?: ExtraProof,
) {
  await enforceRateLimit(env, "login_ip", services.request.ip);
  const candidate = await findLoginCandidate(env.DB, address);
  const account = candidate?.verified
    ? {
        userId: candidate.user_id,
        deviceId: await knownDevice(env.OTP_PEPPER, services.request.deviceCookie, candidate.user_id),
      }
    : null;
  const guardKey = passwordGuardKey(address, account);
  const proven = await guardedProof(env, guardKey, async (failed) => {
    const check = await verifyPassword(password, candidate?.password_hash ?? null);
    if (!candidate || !check.ok) {
      failed();
      throw INVALID_CREDENTIALS();
    }
    if (candidate.status === "pending_verification") {
      fail("EMAIL_NOT_VERIFIED_AT_LOGIN", "Confirm your e-mail address first.");
    }
    if (!candidate.verified) {
      failed();
      throw INVALID_CREDENTIALS();
    }
    if (candidate.status === "locked") throw lockedError(3600);
    if (candidate.status !== "active") await refuseInactive(env.DB, candidate.user_id);
    if (extra) await extra(candidate.user_id, failed);
    return {
      needsRehash: check.needsRehash,
      userId: candidate.user_id,
      hash: candidate.password_hash,
      epoch: candidate.credential_epoch,
    };
  });
  if (proven.needsRehash && proven.hash) {
    await upgradePasswordHash(env.DB, proven.userId, proven.hash, await hashPassword(password));
  }
  return { userId: proven.userId, address, guardKey, epoch: proven.epoch };
}

/**
 * The current password of a signed-in account (password change): the same guard as a sign-in, keyed by
 * the caller's device when it carries the device cookie, else by the account, so a stolen access token is
 * not an unthrottled oracle for the password. A wrong password is a confirmed failure (401), a locked
 * guard answers 423.
 */
export async function proveCurrentPassword(
  env: Env,
  services: Pick<Services, "request">,
  userId: string,
  password: string,
  hash: string,
): Promise<void> {
  const deviceId = await knownDevice(env.OTP_PEPPER, services.request.deviceCookie, userId);
  await guardedProof(env, accountGuardKey(userId, deviceId), async (failed) => {
    if ((await verifyPassword(password, hash)).ok) return;
    failed();
    fail("INVALID_CREDENTIALS", "The current password is wrong.");
  });
}
