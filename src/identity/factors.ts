/** Second factors: TOTP (with replay prevention) and recovery codes. */
import { newId } from "../lib/ids";
import { RECOVERY_POOL_SIZE } from "./config";
import { hmacHex, nowIso, openSecret, randomBytes, sealSecret } from "./crypto";
import { base32Decode, base32Encode, matchTotp } from "./totp";
import type { Env } from "./worker-env";

interface TotpRow {
  secret_enc: string;
  confirmed_at: string | null;
  last_used_step: number | null;
}

function totpRow(db: D1Database, userId: string) {
  return db
    .prepare("SELECT secret_enc, confirmed_at, last_used_step FROM totp_factors WHERE user_id = ?")
    .bind(userId)
    .first<TotpRow>();
}

export async function hasConfirmedTotp(db: D1Database, userId: string): Promise<boolean> {
  const row = await totpRow(db, userId);
  return !!row?.confirmed_at;
}

/** Starts (or restarts) enrollment: a pending secret replaces any earlier pending one. */
export async function beginTotpEnrollment(env: Env, userId: string): Promise<string | null> {
  const existing = await totpRow(env.DB, userId);
  if (existing?.confirmed_at) return null;
  const secret = base32Encode(randomBytes(20));
  const sealed = await sealSecret(env.OTP_PEPPER, secret);
  await env.DB.prepare(
    `INSERT INTO totp_factors (user_id, secret_enc, confirmed_at, last_used_step, created_at) VALUES (?, ?, NULL, NULL, ?)
     ON CONFLICT (user_id) DO UPDATE SET secret_enc = excluded.secret_enc, created_at = excluded.created_at
     WHERE totp_factors.confirmed_at IS NULL`,
  )
    .bind(userId, sealed, nowIso())
    .run();
  return secret;
}

/**
 * Checks a TOTP code and burns its time step with a compare-and-set on `last_used_step`: a code (and
 * any older code) is accepted once, however many requests race with it.
 */
export async function verifyTotp(
  env: Env,
  userId: string,
  code: string,
  mode: "confirmed" | "pending",
): Promise<boolean> {
  const row = await totpRow(env.DB, userId);
  if (!row || (mode === "confirmed" ? !row.confirmed_at : !!row.confirmed_at)) return false;
  const secret = base32Decode(await openSecret(env.OTP_PEPPER, row.secret_enc));
  const step = await matchTotp(secret, code);
  if (step === null) return false;
  const confirm = mode === "pending" ? ", confirmed_at = ?" : "";
  const args: (string | number)[] = mode === "pending" ? [step, nowIso()] : [step];
  const res = await env.DB.prepare(
    `UPDATE totp_factors SET last_used_step = ?${confirm}
     WHERE user_id = ? AND confirmed_at IS ${mode === "pending" ? "NULL" : "NOT NULL"}
       AND (last_used_step IS NULL OR last_used_step < ?)`,
  )
    .bind(...args, userId, step)
    .run();
  return res.meta.changes === 1;
}

export async function removeTotp(db: D1Database, userId: string) {
  await db.prepare("DELETE FROM totp_factors WHERE user_id = ?").bind(userId).run();
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
  const now = nowIso();
  const statements = [env.DB.prepare("DELETE FROM recovery_codes WHERE user_id = ?").bind(userId)];
  for (const code of codes) {
    statements.push(
      env.DB.prepare(
        "INSERT INTO recovery_codes (id, user_id, code_hash, used_at, created_at) VALUES (?, ?, ?, NULL, ?)",
      ).bind(newId(), userId, await recoveryHash(env, code), now),
    );
  }
  return { codes, statements };
}

export async function hasRecoveryCodes(db: D1Database, userId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS ok FROM recovery_codes WHERE user_id = ? AND used_at IS NULL LIMIT 1")
    .bind(userId)
    .first();
  return row !== null;
}

/** Single use by compare-and-set. */
export async function consumeRecoveryCode(env: Env, userId: string, code: string): Promise<boolean> {
  if (normalizeRecoveryCode(code).length !== 10) return false;
  const res = await env.DB.prepare(
    "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
  )
    .bind(nowIso(), userId, await recoveryHash(env, code))
    .run();
  return res.meta.changes === 1;
}
