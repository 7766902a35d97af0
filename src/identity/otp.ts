import { OTP_POLICY, type OtpPurpose } from "./config";
import { hmacHex, isoIn, randomDigits } from "./crypto";
import { claimOtpCode, countOtpAttempt, insertOtpStatements } from "./store/otp-codes";
import type { Env } from "./worker-env";

/**
 * One-time codes sent by e-mail or SMS (6 digits). Only an HMAC keyed by OTP_PEPPER is stored. A new
 * code for the same purpose, target and account supersedes the older ones. Consumption is one
 * compare-and-set UPDATE, so a code is accepted at most once however many requests race.
 */
export interface IssuedOtp {
  code: string;
  expiresAt: string;
}

function codeHash(env: Env, purpose: OtpPurpose, target: string, code: string) {
  return hmacHex(env.OTP_PEPPER, `otp|${purpose}|${target}|${code}`);
}

/** Statements issuing a code (superseding earlier ones), to run alone or inside a larger batch. */
export async function prepareOtp(
  env: Env,
  input: { purpose: OtpPurpose; target: string; userId: string | null; context?: string | null },
): Promise<IssuedOtp & { statements: D1PreparedStatement[] }> {
  const policy = OTP_POLICY[input.purpose];
  const code = randomDigits(6);
  const expiresAt = isoIn(policy.ttl);
  const statements = insertOtpStatements(env.DB, {
    purpose: input.purpose,
    target: input.target,
    userId: input.userId,
    context: input.context ?? null,
    codeHash: await codeHash(env, input.purpose, input.target, code),
    maxAttempts: policy.attempts,
    expiresAt,
  });
  return { code, expiresAt, statements };
}

export async function issueOtp(
  env: Env,
  input: { purpose: OtpPurpose; target: string; userId: string | null; context?: string | null },
): Promise<IssuedOtp> {
  const { code, expiresAt, statements } = await prepareOtp(env, input);
  await env.DB.batch(statements);
  return { code, expiresAt };
}

/**
 * Consumes a code: returns the account it was issued for, or null for every failure (missing, wrong,
 * used, expired, exhausted, other context). A wrong code counts an attempt on the live codes of that
 * target (and account, when given).
 */
export async function consumeOtp(
  env: Env,
  input: { purpose: OtpPurpose; target: string; code: string; userId?: string; context?: string | null },
): Promise<{ userId: string | null } | null> {
  const scope = {
    purpose: input.purpose,
    target: input.target,
    userId: input.userId,
    context: input.context,
  };
  if (/^\d{6}$/.test(input.code)) {
    const won = await claimOtpCode(
      env.DB,
      scope,
      await codeHash(env, input.purpose, input.target, input.code),
    );
    if (won) return { userId: won.user_id };
  }
  await countOtpAttempt(env.DB, scope);
  return null;
}
