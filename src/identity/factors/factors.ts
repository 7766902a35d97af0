/** Second factors: TOTP (with replay prevention) and recovery codes. */
import { RECOVERY_POOL_SIZE } from "../core/config";
import { hmacHex, openSecret, randomBytes, sealSecret } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { problem } from "../errors";
import {
  burnTotpStep,
  findTotp,
  replaceRecoveryPoolStatements,
  savePendingTotp,
  useRecoveryCode,
} from "./store";
import { base32Decode, base32Encode, matchTotp } from "./totp";

export async function hasConfirmedTotp(db: D1Database, userId: string): Promise<boolean> {
  const row = await findTotp(db, userId);
  return !!row?.confirmed_at;
}

/**
 * Starts (or restarts) enrollment: a pending secret replaces any earlier pending one. null when a
 * confirmed factor exists (checked before `prove`, the ceremony's proof: factor-enrollment.ts).
 */
export async function beginTotpEnrollment(
  env: Env,
  userId: string,
  prove: () => Promise<boolean>,
): Promise<string | null> {
  const existing = await findTotp(env.DB, userId);
  if (existing?.confirmed_at) return null;
  const steppedUp = await prove();
  const secret = base32Encode(randomBytes(20));
  await savePendingTotp(env.DB, userId, await sealSecret(env.OTP_PEPPER, secret), steppedUp);
  return secret;
}

/**
 * Checks a TOTP code and burns its time step: a code (and any older code) is accepted once, however
 * many requests race with it.
 */
export async function verifyTotp(
  env: Env,
  userId: string,
  code: string,
  mode: "confirmed" | "pending",
  event?: D1PreparedStatement,
): Promise<boolean> {
  return (await checkTotp(env, userId, code, mode, event)) === "ok";
}

/**
 * What a TOTP code proved: `ok` (its step is now burned), `wrong`, or `used`: it matched a step of the
 * drift window that was already spent, or one older than the last spent (a replay, or two tools signing
 * in within one 30 s step). `used` is still a refusal and counts as a wrong attempt.
 */
export type TotpVerdict = "ok" | "wrong" | "used";

export async function checkTotp(
  env: Env,
  userId: string,
  code: string,
  mode: "confirmed" | "pending",
  event?: D1PreparedStatement,
): Promise<TotpVerdict> {
  const row = await findTotp(env.DB, userId);
  if (!row || (mode === "confirmed" ? !row.confirmed_at : !!row.confirmed_at)) return "wrong";
  const secret = base32Decode(await openSecret(env.OTP_PEPPER, row.secret_enc));
  const step = await matchTotp(secret, code);
  if (step === null) return "wrong";
  if (await burnTotpStep(env.DB, userId, step, mode, event)) return "ok";
  return mode === "confirmed" ? "used" : "wrong";
}

/** The spec's 401 MFA_INVALID_CODE for a refused TOTP code, saying so when the code was already used. */
export function totpRefusal(verdict: TotpVerdict, details: Record<string, number> = {}) {
  return verdict === "used"
    ? problem("MFA_INVALID_CODE", {
        detail: "This TOTP code was already used; wait for the next code from your authenticator app.",
        details: { ...details, reason: "code_already_used" },
      })
    : problem("MFA_INVALID_CODE", {
        detail: "The TOTP code is invalid.",
        ...(Object.keys(details).length ? { details } : {}),
      });
}

// Recovery codes: 10 codes of 10 base32 characters (50 bits), shown once, stored as keyed SHA-256.

function normalizeRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, "").toUpperCase();
}

function recoveryHash(env: Env, code: string) {
  return hmacHex(env.OTP_PEPPER, `recovery|${normalizeRecoveryCode(code)}`);
}

/** Statements replacing the user's pool (old codes invalidated in the same batch) and the plain codes. */
export async function newRecoveryPool(env: Env, userId: string) {
  const codes: string[] = [];
  for (let i = 0; i < RECOVERY_POOL_SIZE; i++) {
    const raw = base32Encode(randomBytes(7)).slice(0, 10);
    codes.push(`${raw.slice(0, 5)}-${raw.slice(5)}`);
  }
  const hashes = await Promise.all(codes.map((code) => recoveryHash(env, code)));
  return { codes, ...replaceRecoveryPoolStatements(env.DB, userId, hashes) };
}

export async function consumeRecoveryCode(env: Env, userId: string, code: string): Promise<boolean> {
  if (normalizeRecoveryCode(code).length !== 10) return false;
  return useRecoveryCode(env.DB, userId, await recoveryHash(env, code));
}
