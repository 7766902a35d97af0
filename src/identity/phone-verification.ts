/** Proving a phone number for the caller's account, so that it can receive second-factor codes. */
import { maskPhone } from "./crypto";
import { fail, problem } from "./errors";
import { enforceRateLimit } from "./guards";
import type { SmsSender } from "./messaging";
import { issueOtp, verifyOtp } from "./otp";
import { pendingPhoneVerification, retirePendingPhoneCodes, saveVerifiedPhone } from "./store/phones";
import type { Env } from "./worker-env";

const E164 = /^\+[1-9]\d{6,14}$/;

/** The number in E.164 once spaces, dashes and parentheses are dropped; 400 INVALID_PHONE otherwise. */
export function parsePhone(raw: string): string {
  const phone = raw.replace(/[\s()-]/g, "");
  if (!E164.test(phone)) fail("INVALID_PHONE", "Use the E.164 format, e.g. +14155550123.");
  return phone;
}

/** Sends a code to `phone` (earlier pending codes of the account die); the provider's refusal is 502. */
export async function startPhoneVerification(env: Env, sms: SmsSender, userId: string, phone: string) {
  await enforceRateLimit(env, "phone_start_user", userId);
  await retirePendingPhoneCodes(env.DB, userId);
  const otp = await issueOtp(env, { purpose: "phone_verify", target: phone, userId, context: "phone" });
  try {
    await sms.send({
      to: phone,
      purpose: "phone_verify",
      subject: "Phone verification",
      body: `Your verification code is ${otp.code}.`,
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

/**
 * Proves the pending number with its code; it becomes the account's phone. A wrong code answers how many
 * attempts remain; the last wrong one (and any try after it) is 429 TOO_MANY_ATTEMPTS.
 */
export async function confirmPhone(env: Env, userId: string, code: string, event?: D1PreparedStatement) {
  const pending = await pendingPhoneVerification(env.DB, userId);
  if (!pending) {
    fail("PHONE_VERIFICATION_NOT_FOUND", "Start a phone verification first.");
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
  await saveVerifiedPhone(env.DB, userId, pending.target, event);
  return { phone: maskPhone(pending.target), verified: true as const };
}
