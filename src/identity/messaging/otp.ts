import { batch } from "../../lib/sql";
import { OTP_POLICY, type OtpPurpose } from "../core/config";
import { hmacHex, isoIn, randomDigits, randomToken } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { attemptOtpCode, claimOtpLink, insertOtpStatements } from "./otp-codes-store";

/**
 * One-time codes sent by e-mail or SMS (6 digits). Only an HMAC keyed by OTP_PEPPER is stored. Every
 * guess is counted and checked in one conditional UPDATE (messaging/otp-codes-store.ts), so no more than the
 * policy's attempts are ever evaluated against a code, however many requests race, and a code is
 * consumed once. Purposes with `link` also carry a 256-bit token for the e-mailed link.
 */
export interface IssuedOtp {
  code: string;
  expiresAt: string;
  /** The e-mailed link's token, for purposes with `link` (magic link, password reset). */
  linkToken: string | null;
}

export interface OtpScopeInput {
  purpose: OtpPurpose;
  target: string;
  userId?: string;
  context?: string | null;
}

/** What a verification did: the account of the consumed code (null: refused) and the attempts left. */
export interface OtpOutcome {
  userId: string | null;
  /** The account's credential epoch when the code was consumed (null: refused, or no account). */
  epoch: number | null;
  won: boolean;
  remaining: number;
}

const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

function codeHash(env: Env, purpose: OtpPurpose, target: string, code: string) {
  return hmacHex(env.OTP_PEPPER, `otp|${purpose}|${target}|${code}`);
}

function linkHash(env: Env, purpose: OtpPurpose, target: string, token: string) {
  return hmacHex(env.OTP_PEPPER, `otp-link|${purpose}|${target}|${token}`);
}

/** Statements issuing a code (superseding earlier ones), to run alone or inside a larger batch. */
export async function prepareOtp(
  env: Env,
  input: { purpose: OtpPurpose; target: string; userId: string | null; context?: string | null },
): Promise<IssuedOtp & { statements: D1PreparedStatement[] }> {
  const policy = OTP_POLICY[input.purpose];
  const code = randomDigits(6);
  const linkToken = policy.link ? randomToken(32) : null;
  const expiresAt = isoIn(policy.ttl);
  const statements = insertOtpStatements(env.DB, {
    purpose: input.purpose,
    target: input.target,
    userId: input.userId,
    context: input.context ?? null,
    codeHash: await codeHash(env, input.purpose, input.target, code),
    linkHash: linkToken ? await linkHash(env, input.purpose, input.target, linkToken) : null,
    maxAttempts: policy.attempts,
    expiresAt,
    supersede: !policy.link,
  });
  return { code, expiresAt, linkToken, statements };
}

export async function issueOtp(
  env: Env,
  input: { purpose: OtpPurpose; target: string; userId: string | null; context?: string | null },
): Promise<IssuedOtp> {
  const { code, expiresAt, linkToken, statements } = await prepareOtp(env, input);
  await batch(env.DB, statements);
  return { code, expiresAt, linkToken };
}

/** True when `code` has the shape of a link token (what the e-mailed link carries). */
export function isLinkToken(code: string): boolean {
  return LINK_TOKEN.test(code);
}

/**
 * One verification: a link token (for purposes with links) is claimed without counting an attempt; any
 * other input is one guess, counted and checked atomically on every live code of the scope.
 */
export async function verifyOtp(env: Env, input: OtpScopeInput & { code: string }): Promise<OtpOutcome> {
  const scope = {
    purpose: input.purpose,
    target: input.target,
    userId: input.userId,
    context: input.context,
  };
  if (OTP_POLICY[input.purpose].link && isLinkToken(input.code)) {
    const won = await claimOtpLink(
      env.DB,
      scope,
      await linkHash(env, input.purpose, input.target, input.code),
    );
    return { userId: won?.user_id ?? null, epoch: won?.epoch ?? null, won: !!won, remaining: 0 };
  }
  // A malformed code still counts as a guess (it can never match a stored hash).
  const hash = /^\d{6}$/.test(input.code)
    ? await codeHash(env, input.purpose, input.target, input.code)
    : "-";
  const attempt = await attemptOtpCode(env.DB, scope, hash);
  const won = attempt.won;
  return {
    userId: won?.user_id ?? null,
    epoch: won?.epoch ?? null,
    won: !!won,
    remaining: attempt.remaining,
  };
}

/**
 * Consumes a code: returns the account it was issued for, or null for every failure (missing, wrong,
 * used, expired, exhausted, other context).
 */
export async function consumeOtp(
  env: Env,
  input: OtpScopeInput & { code: string },
): Promise<{ userId: string | null; epoch: number | null } | null> {
  const outcome = await verifyOtp(env, input);
  return outcome.won ? { userId: outcome.userId, epoch: outcome.epoch } : null;
}
