import { newId } from "../lib/ids";
import { OTP_POLICY, type OtpPurpose } from "./config";
import { hmacHex, isoIn, nowIso, randomDigits } from "./crypto";
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
  const now = nowIso();
  const expiresAt = isoIn(policy.ttl);
  const statements = [
    env.DB.prepare(
      "UPDATE otp_codes SET used_at = ? WHERE purpose = ? AND target = ? AND user_id IS ? AND used_at IS NULL",
    ).bind(now, input.purpose, input.target, input.userId),
    env.DB.prepare(
      `INSERT INTO otp_codes (id, purpose, target, user_id, context, code_hash, attempts, max_attempts, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    ).bind(
      newId(),
      input.purpose,
      input.target,
      input.userId,
      input.context ?? null,
      await codeHash(env, input.purpose, input.target, code),
      policy.attempts,
      expiresAt,
      now,
    ),
  ];
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
  const now = nowIso();
  const filters: string[] = [];
  const filterArgs: (string | null)[] = [];
  if (input.userId !== undefined) {
    filters.push(" AND user_id = ?");
    filterArgs.push(input.userId);
  }
  if (input.context !== undefined) {
    filters.push(" AND context IS ?");
    filterArgs.push(input.context ?? null);
  }
  const where = filters.join("");
  if (/^\d{6}$/.test(input.code)) {
    const hash = await codeHash(env, input.purpose, input.target, input.code);
    const won = await env.DB.prepare(
      `UPDATE otp_codes SET used_at = ?
       WHERE id = (SELECT id FROM otp_codes
                   WHERE purpose = ? AND target = ? AND code_hash = ? AND used_at IS NULL
                     AND attempts < max_attempts AND expires_at > ?${where}
                   ORDER BY created_at DESC LIMIT 1)
         AND used_at IS NULL AND attempts < max_attempts
       RETURNING user_id`,
    )
      .bind(now, input.purpose, input.target, hash, now, ...filterArgs)
      .first<{ user_id: string | null }>();
    if (won) return { userId: won.user_id };
  }
  await env.DB.prepare(
    `UPDATE otp_codes SET attempts = attempts + 1
     WHERE purpose = ? AND target = ? AND used_at IS NULL AND expires_at > ?${where}`,
  )
    .bind(input.purpose, input.target, now, ...filterArgs)
    .run();
  return null;
}
