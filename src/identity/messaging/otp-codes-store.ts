/** One-time codes: only an HMAC of the code is stored. */

import type { otpCodes } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import type { OtpPurpose } from "../core/config";
import { nowIso } from "../core/crypto";

export interface NewOtpCode {
  purpose: OtpPurpose;
  target: string;
  userId: string | null;
  context: string | null;
  codeHash: string;
  maxAttempts: number;
  expiresAt: string;
  /** HMAC of the link token, for codes that are also e-mailed as a link. */
  linkHash: string | null;
  /** False: earlier live codes stay valid (a stranger's request must not kill the owner's code). */
  supersede: boolean;
}

/**
 * Statements storing a code and (unless `supersede` is false) retiring the earlier live ones of the same
 * purpose, target and account.
 */
export function insertOtpStatements(db: D1Database, code: NewOtpCode): D1PreparedStatement[] {
  const now = nowIso();
  const retire = db
    .prepare(
      "UPDATE otp_codes SET used_at = ? WHERE purpose = ? AND target = ? AND user_id IS ? AND used_at IS NULL",
    )
    .bind(now, code.purpose, code.target, code.userId);
  return [
    ...(code.supersede ? [retire] : []),
    db
      .prepare(
        `INSERT INTO otp_codes (id, purpose, target, user_id, context, code_hash, link_hash, attempts, max_attempts, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      )
      .bind(
        newId(),
        code.purpose,
        code.target,
        code.userId,
        code.context,
        code.codeHash,
        code.linkHash,
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
 * What a consumed code was bound to: its account, and that account's credential epoch read in the same
 * statement that consumed it (a session it opens is issued only while the epoch is unchanged).
 */
export interface OtpWin {
  user_id: string | null;
  epoch: number | null;
}

/** Read in the RETURNING of the consuming UPDATE, so it is the epoch at the moment of consumption. */
const EPOCH = "(SELECT u.credential_epoch FROM users u WHERE u.id = otp_codes.user_id) AS epoch";

/** What one guess did: the account of the code it consumed (or null), and the attempts left after it. */
export interface OtpAttempt {
  won: OtpWin | null;
  /** Attempts left on the best live code of the scope after this one; 0 when none is left. */
  remaining: number;
}

/**
 * One guess against the live codes of the scope, counted and checked in ONE conditional UPDATE: every
 * live, unexhausted code of the scope takes the attempt, and the one whose hash matches is consumed in
 * the same statement. Under any concurrency at most `max_attempts` guesses are ever evaluated against a
 * code (the 6th finds `attempts = max_attempts` and touches nothing), and a code is consumed once.
 */
export async function attemptOtpCode(db: D1Database, scope: OtpScope, codeHash: string): Promise<OtpAttempt> {
  const now = nowIso();
  const filter = scopeFilter(scope);
  const { results } = await db
    .prepare(
      `UPDATE otp_codes
       SET attempts = attempts + 1,
           used_at = CASE WHEN code_hash = ? THEN ? ELSE used_at END
       WHERE purpose = ? AND target = ? AND used_at IS NULL AND attempts < max_attempts
         AND expires_at > ?${filter.sql}
       RETURNING user_id, used_at IS NOT NULL AS won, max_attempts - attempts AS remaining, ${EPOCH}`,
    )
    .bind(codeHash, now, scope.purpose, scope.target, now, ...filter.args)
    .all<
      Row<typeof otpCodes, "user_id"> & Computed<{ won: number; remaining: number; epoch: number | null }>
    >();
  const won = results.find((r) => r.won === 1);
  const remaining = results.reduce((n, r) => (r.won ? n : Math.max(n, r.remaining)), 0);
  return { won: won ? { user_id: won.user_id, epoch: won.epoch } : null, remaining };
}

/**
 * Consumes the live code of the scope whose e-mailed link token has this hash. A link token carries 256
 * bits, so it is not attempt-limited: a stranger's wrong typed codes exhaust the typed code, never the
 * link in the owner's mailbox.
 */
export function claimOtpLink(db: D1Database, scope: OtpScope, linkHash: string): Promise<OtpWin | null> {
  const now = nowIso();
  const filter = scopeFilter(scope);
  return db
    .prepare(
      `UPDATE otp_codes SET used_at = ?
       WHERE purpose = ? AND target = ? AND link_hash = ? AND used_at IS NULL AND expires_at > ?${filter.sql}
       RETURNING user_id, ${EPOCH}`,
    )
    .bind(now, scope.purpose, scope.target, linkHash, now, ...filter.args)
    .first<OtpWin>();
}
