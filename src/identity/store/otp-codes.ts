/** One-time codes: only an HMAC of the code is stored. */
import { newId } from "../../lib/ids";
import type { OtpPurpose } from "../config";
import { nowIso } from "../crypto";

export interface NewOtpCode {
  purpose: OtpPurpose;
  target: string;
  userId: string | null;
  context: string | null;
  codeHash: string;
  maxAttempts: number;
  expiresAt: string;
}

/** Statements storing a code and retiring the earlier live ones of the same purpose, target and account. */
export function insertOtpStatements(db: D1Database, code: NewOtpCode): D1PreparedStatement[] {
  const now = nowIso();
  return [
    db
      .prepare(
        "UPDATE otp_codes SET used_at = ? WHERE purpose = ? AND target = ? AND user_id IS ? AND used_at IS NULL",
      )
      .bind(now, code.purpose, code.target, code.userId),
    db
      .prepare(
        `INSERT INTO otp_codes (id, purpose, target, user_id, context, code_hash, attempts, max_attempts, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      )
      .bind(
        newId(),
        code.purpose,
        code.target,
        code.userId,
        code.context,
        code.codeHash,
        code.maxAttempts,
        code.expiresAt,
        now,
      ),
  ];
}

/** Narrows which live codes a claim or a failed attempt touches (undefined: no restriction). */
export interface OtpScope {
  purpose: OtpPurpose;
  target: string;
  userId?: string;
  context?: string | null;
}

function scopeFilter(scope: OtpScope): { sql: string; args: (string | null)[] } {
  let sql = "";
  const args: (string | null)[] = [];
  if (scope.userId !== undefined) {
    sql += " AND user_id = ?";
    args.push(scope.userId);
  }
  if (scope.context !== undefined) {
    sql += " AND context IS ?";
    args.push(scope.context ?? null);
  }
  return { sql, args };
}

/**
 * Marks the newest live code with that hash used, in one compare-and-set UPDATE, so a code is accepted
 * at most once however many requests race. Returns the account it was issued for, or null when none won.
 */
export async function claimOtpCode(
  db: D1Database,
  scope: OtpScope,
  codeHash: string,
): Promise<{ user_id: string | null } | null> {
  const now = nowIso();
  const filter = scopeFilter(scope);
  return db
    .prepare(
      `UPDATE otp_codes SET used_at = ?
       WHERE id = (SELECT id FROM otp_codes
                   WHERE purpose = ? AND target = ? AND code_hash = ? AND used_at IS NULL
                     AND attempts < max_attempts AND expires_at > ?${filter.sql}
                   ORDER BY created_at DESC LIMIT 1)
         AND used_at IS NULL AND attempts < max_attempts
       RETURNING user_id`,
    )
    .bind(now, scope.purpose, scope.target, codeHash, now, ...filter.args)
    .first<{ user_id: string | null }>();
}

/** A wrong code counts one attempt on every live code of the scope. */
export async function countOtpAttempt(db: D1Database, scope: OtpScope) {
  const filter = scopeFilter(scope);
  await db
    .prepare(
      `UPDATE otp_codes SET attempts = attempts + 1
       WHERE purpose = ? AND target = ? AND used_at IS NULL AND expires_at > ?${filter.sql}`,
    )
    .bind(scope.purpose, scope.target, nowIso(), ...filter.args)
    .run();
}
