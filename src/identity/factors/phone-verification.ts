/** Proving a phone number for the caller's account, so that it can receive second-factor codes. */
import { maskPhone } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail, problem } from "../errors";
import { enforceRateLimit } from "../login/guards";
import type { SmsSender } from "../messaging/messaging";
import { issueOtp, verifyOtp } from "../messaging/otp";
import { pendingPhoneVerification, retirePendingPhoneCodes, saveVerifiedPhone } from "./phones-store";

const E164 = /^\+[1-9]\d{6,14}$/;

/** The number in E.164 once spaces, dashes and parentheses are dropped; 400 INVALID_PHONE otherwise. */
export function parsePhone(raw: string): string {
  const phone = raw.replace(/[\s()-]/g, "");
  if (!E164.test(phone)) fail("INVALID_PHONE", "Use the E.164 format, e.g. +14155550123.");
  return phone;
}

/** The context of a pending verification: whether it was started with the step-up code. */
const CONTEXT = { proven: "phone+step_up", plain: "phone" } as const;

/**
 * Sends a code to `phone` (earlier pending codes of the account die); the provider's refusal is 502.
 * `steppedUp`: the verification was started with the step-up code (factor-enrollment.ts).
 */
export async function startPhoneVerification(
  env: Env,
  sms: SmsSender,
  input: { userId: string; phone: string; steppedUp: boolean },
) {
  const { userId, phone } = input;
  await enforceRateLimit(env, "phone_start_user", userId);
  await retirePendingPhoneCodes(env.DB, userId);
  const context = input.steppedUp ? CONTEXT.proven : CONTEXT.plain;
  const otp = await issueOtp(env, { purpose: "phone_verify", target: phone, userId, context });
  try {
    await sms.send({
      to: phone,
      purpose: "phone_verify",
      code: otp.code,
    });
  } catch (err) {
    fail("SMS_DELIVERY_FAILED", {
      detail: "The SMS could not be sent; try again.",
      reason: (err as Error).message,
    });
  }
  return { expires_at: otp.expiresAt, sent_to: maskPhone(phone) };
}

const TOO_MANY = () => problem("TOO_MANY_ATTEMPTS", "Too many wrong codes; start the verification again.");

const NOT_FOUND = () => problem("PHONE_VERIFICATION_NOT_FOUND", "Start a phone verification first.");

/**
 * Proves the pending number with its code; it becomes the account's phone (with a new id, returned for
 * the owner notice). A wrong code answers how many attempts remain; the last wrong one (and any try
 * after it) is 429 TOO_MANY_ATTEMPTS. A verification started without the step-up completes only while
 * the account has no factor (a replaced number is one): otherwise it is dropped, 404, start again.
 */
export async function confirmPhone(
  env: Env,
  userId: string,
  code: string,
  mayComplete: (steppedUp: boolean) => Promise<boolean>,
  event?: D1PreparedStatement,
) {
  const pending = await pendingPhoneVerification(env.DB, userId);
  if (!pending) throw NOT_FOUND();
  const steppedUp = pending.context === CONTEXT.proven;
  if (!(await mayComplete(steppedUp))) {
    await retirePendingPhoneCodes(env.DB, userId);
    throw NOT_FOUND();
  }
  if (pending.attempts >= pending.max_attempts) throw TOO_MANY();
  const outcome = await verifyOtp(env, { purpose: "phone_verify", target: pending.target, code, userId });
  if (!outcome.won) {
    const remaining = outcome.remaining;
    if (remaining === 0) throw TOO_MANY();
    fail("MFA_INVALID_CODE", {
      detail: "The code is invalid.",
      details: { attempts_remaining: remaining },
    });
  }
  const id = await saveVerifiedPhone(env.DB, userId, pending.target, steppedUp, event);
  if (!id) throw NOT_FOUND();
  return { phone: maskPhone(pending.target), verified: true as const, id };
}
