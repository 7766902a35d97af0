/** One-time codes: only an HMAC of the code is stored. Queries go through drizzle's query builder. */

import { and, eq, gt, isNull, lt, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { otpCodes, users } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { prepared } from "../../lib/sql";
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
  const d = drizzle(db);
  const retire = d
    .update(otpCodes)
    .set({ used_at: now })
    .where(
      and(
        eq(otpCodes.purpose, code.purpose),
        eq(otpCodes.target, code.target),
        sql`${otpCodes.user_id} IS ${code.userId}`,
        isNull(otpCodes.used_at),
      ),
    );
  const insert = d.insert(otpCodes).values({
    id: newId(),
    purpose: code.purpose,
    target: code.target,
    user_id: code.userId,
    context: code.context,
    code_hash: code.codeHash,
    link_hash: code.linkHash,
    attempts: 0,
    max_attempts: code.maxAttempts,
    expires_at: code.expiresAt,
    created_at: now,
  });
  return [...(code.supersede ? [prepared(db, retire)] : []), prepared(db, insert)];
}

/** Narrows which live codes a claim or a failed attempt touches (undefined: no restriction). */
export interface OtpScope {
  purpose: OtpPurpose;
  target: string;
  userId?: string;
  context?: string | null;
}

function scopeFilter(scope: OtpScope): (SQL | undefined)[] {
  return [
    scope.userId === undefined ? undefined : eq(otpCodes.user_id, scope.userId),
    scope.context === undefined ? undefined : sql`${otpCodes.context} IS ${scope.context ?? null}`,
  ];
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
function epoch(db: D1Database) {
  const epochOf = drizzle(db)
    .select({ credential_epoch: users.credential_epoch })
    .from(users)
    .where(eq(users.id, otpCodes.user_id));
  return sql<number | null>`(${epochOf})`;
}

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
  const results = await drizzle(db)
    .update(otpCodes)
    .set({
      attempts: sql`${otpCodes.attempts} + 1`,
      used_at: sql`CASE WHEN ${otpCodes.code_hash} = ${codeHash} THEN ${now} ELSE ${otpCodes.used_at} END`,
    })
    .where(
      and(
        eq(otpCodes.purpose, scope.purpose),
        eq(otpCodes.target, scope.target),
        isNull(otpCodes.used_at),
        lt(otpCodes.attempts, otpCodes.max_attempts),
        gt(otpCodes.expires_at, now),
        ...scopeFilter(scope),
      ),
    )
    .returning({
      user_id: otpCodes.user_id,
      won: sql<number>`${otpCodes.used_at} IS NOT NULL`,
      remaining: sql<number>`${otpCodes.max_attempts} - ${otpCodes.attempts}`,
      epoch: epoch(db),
    })
    .all();
  const won = results.find((r) => r.won === 1);
  const remaining = results.reduce((n, r) => (r.won ? n : Math.max(n, r.remaining)), 0);
  return { won: won ? { user_id: won.user_id, epoch: won.epoch } : null, remaining };
}

/**
 * Consumes the live code of the scope whose e-mailed link token has this hash. A link token carries 256
 * bits, so it is not attempt-limited: a stranger's wrong typed codes exhaust the typed code, never the
 * link in the owner's mailbox.
 */
export async function claimOtpLink(
  db: D1Database,
  scope: OtpScope,
  linkHash: string,
): Promise<OtpWin | null> {
  const now = nowIso();
  const row = await drizzle(db)
    .update(otpCodes)
    .set({ used_at: now })
    .where(
      and(
        eq(otpCodes.purpose, scope.purpose),
        eq(otpCodes.target, scope.target),
        eq(otpCodes.link_hash, linkHash),
        isNull(otpCodes.used_at),
        gt(otpCodes.expires_at, now),
        ...scopeFilter(scope),
      ),
    )
    .returning({ user_id: otpCodes.user_id, epoch: epoch(db) })
    .get();
  return row ?? null;
}
