/** TOTP factors and recovery codes (secrets sealed, codes stored as keyed hashes). */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { totpFactors } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { nowIso } from "../crypto";
import { batchWithEvent } from "./events";

export type TotpRow = Pick<typeof totpFactors.$inferSelect, "secret_enc" | "confirmed_at" | "last_used_step">;

export async function findTotp(db: D1Database, userId: string): Promise<TotpRow | null> {
  const row = await drizzle(db)
    .select({
      secret_enc: totpFactors.secret_enc,
      confirmed_at: totpFactors.confirmed_at,
      last_used_step: totpFactors.last_used_step,
    })
    .from(totpFactors)
    .where(eq(totpFactors.user_id, userId))
    .get();
  return row ?? null;
}

/** A pending secret replaces any earlier pending one; a confirmed factor is never overwritten. */
export async function savePendingTotp(db: D1Database, userId: string, sealedSecret: string) {
  await db
    .prepare(
      `INSERT INTO totp_factors (user_id, secret_enc, confirmed_at, last_used_step, created_at) VALUES (?, ?, NULL, NULL, ?)
       ON CONFLICT (user_id) DO UPDATE SET secret_enc = excluded.secret_enc, created_at = excluded.created_at
       WHERE totp_factors.confirmed_at IS NULL`,
    )
    .bind(userId, sealedSecret, nowIso())
    .run();
}

/**
 * Burns a time step with a compare-and-set on `last_used_step` (and confirms a pending factor with it);
 * false when that step or a later one was already used.
 */
export async function burnTotpStep(
  db: D1Database,
  userId: string,
  step: number,
  mode: "confirmed" | "pending",
  event?: D1PreparedStatement,
): Promise<boolean> {
  const confirm = mode === "pending" ? ", confirmed_at = ?" : "";
  const args: (string | number)[] = mode === "pending" ? [step, nowIso()] : [step];
  const burn = db
    .prepare(
      `UPDATE totp_factors SET last_used_step = ?${confirm}
       WHERE user_id = ? AND confirmed_at IS ${mode === "pending" ? "NULL" : "NOT NULL"}
         AND (last_used_step IS NULL OR last_used_step < ?)`,
    )
    .bind(...args, userId, step);
  const [res] = await batchWithEvent(db, [burn], event);
  return res?.meta.changes === 1;
}

export async function deleteTotp(db: D1Database, userId: string, event?: D1PreparedStatement) {
  await batchWithEvent(db, [db.prepare("DELETE FROM totp_factors WHERE user_id = ?").bind(userId)], event);
}

/** Statements replacing the account's pool: the old codes die in the same batch. */
export function replaceRecoveryPoolStatements(db: D1Database, userId: string, codeHashes: string[]) {
  const now = nowIso();
  return [
    db.prepare("DELETE FROM recovery_codes WHERE user_id = ?").bind(userId),
    ...codeHashes.map((hash) =>
      db
        .prepare(
          "INSERT INTO recovery_codes (id, user_id, code_hash, used_at, created_at) VALUES (?, ?, ?, NULL, ?)",
        )
        .bind(newId(), userId, hash, now),
    ),
  ];
}

/** Whether a pool was ever issued (used codes included). */
export async function hasRecoveryPool(db: D1Database, userId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS ok FROM recovery_codes WHERE user_id = ? LIMIT 1")
    .bind(userId)
    .first();
  return row !== null;
}

export async function hasUnusedRecoveryCodes(db: D1Database, userId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS ok FROM recovery_codes WHERE user_id = ? AND used_at IS NULL LIMIT 1")
    .bind(userId)
    .first();
  return row !== null;
}

/** Single use by compare-and-set. */
export async function useRecoveryCode(db: D1Database, userId: string, codeHash: string): Promise<boolean> {
  const res = await db
    .prepare("UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL")
    .bind(nowIso(), userId, codeHash)
    .run();
  return res.meta.changes === 1;
}

/** Counts behind the factor capabilities: passkeys, verified phones, unused recovery codes. */
export async function factorCounts(db: D1Database, userId: string) {
  const row = await db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM passkeys WHERE user_id = ?1) AS passkeys,
              (SELECT COUNT(*) FROM phones WHERE user_id = ?1 AND verified_at IS NOT NULL) AS phones,
              (SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL) AS recovery`,
    )
    .bind(userId)
    .first<{ passkeys: number; phones: number; recovery: number }>();
  return { passkeys: row?.passkeys ?? 0, phones: row?.phones ?? 0, recovery: row?.recovery ?? 0 };
}
