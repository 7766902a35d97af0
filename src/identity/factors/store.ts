/** TOTP factors and recovery codes (secrets sealed, codes stored as keyed hashes). */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type passkeys as passkeysTable, type phones, totpFactors } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { batchWithEvent } from "../events/store";

export type TotpRow = Pick<
  typeof totpFactors.$inferSelect,
  "id" | "secret_enc" | "confirmed_at" | "last_used_step" | "stepped_up"
>;

/**
 * SQL true when the account bound to `param` has a sign-in factor: a confirmed TOTP, a verified phone
 * or a passkey (recovery codes and addresses do not count). Adding another then costs the step-up.
 */
export function hasFactorSql(param: string): string {
  return `(EXISTS (SELECT 1 FROM totp_factors WHERE user_id = ${param} AND confirmed_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM phones WHERE user_id = ${param} AND verified_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM passkeys WHERE user_id = ${param}))`;
}

export async function hasSignInFactor(db: D1Database, userId: string): Promise<boolean> {
  const row = await db
    .prepare(`SELECT ${hasFactorSql("?1")} AS has`)
    .bind(userId)
    .first<Computed<{ has: number }>>();
  return row?.has === 1;
}

export async function findTotp(db: D1Database, userId: string): Promise<TotpRow | null> {
  const row = await drizzle(db)
    .select({
      id: totpFactors.id,
      secret_enc: totpFactors.secret_enc,
      confirmed_at: totpFactors.confirmed_at,
      last_used_step: totpFactors.last_used_step,
      stepped_up: totpFactors.stepped_up,
    })
    .from(totpFactors)
    .where(eq(totpFactors.user_id, userId))
    .get();
  return row ?? null;
}

/**
 * A pending secret (with a new id, and whether its ceremony was opened with the step-up) replaces any
 * earlier pending one; a confirmed factor is never overwritten.
 */
export async function savePendingTotp(
  db: D1Database,
  userId: string,
  sealedSecret: string,
  steppedUp: boolean,
) {
  await db
    .prepare(
      `INSERT INTO totp_factors (user_id, id, secret_enc, confirmed_at, last_used_step, created_at, stepped_up)
       VALUES (?, ?, ?, NULL, NULL, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET id = excluded.id, secret_enc = excluded.secret_enc,
         created_at = excluded.created_at, stepped_up = excluded.stepped_up
       WHERE totp_factors.confirmed_at IS NULL`,
    )
    .bind(userId, newId(), sealedSecret, nowIso(), steppedUp ? 1 : 0)
    .run();
}

/** Drops a pending enrollment (one that may no longer complete); a confirmed factor is kept. */
export async function deletePendingTotp(db: D1Database, userId: string) {
  await db.prepare("DELETE FROM totp_factors WHERE user_id = ? AND confirmed_at IS NULL").bind(userId).run();
}

/**
 * Burns a time step with a compare-and-set on `last_used_step` (and confirms a pending factor with it);
 * false when that step or a later one was already used. A pending factor opened without the step-up is
 * confirmed only while the account has no other factor, decided inside the UPDATE (no race).
 */
export async function burnTotpStep(
  db: D1Database,
  userId: string,
  step: number,
  mode: "confirmed" | "pending",
  event?: D1PreparedStatement,
): Promise<boolean> {
  const confirm = mode === "pending" ? ", confirmed_at = ?3" : "";
  const proof = mode === "pending" ? `AND (stepped_up = 1 OR NOT ${hasFactorSql("?2")})` : "";
  const burn = db
    .prepare(
      `UPDATE totp_factors SET last_used_step = ?1${confirm}
       WHERE user_id = ?2 AND confirmed_at IS ${mode === "pending" ? "NULL" : "NOT NULL"}
         AND (last_used_step IS NULL OR last_used_step < ?1) ${proof}`,
    )
    .bind(step, userId, ...(mode === "pending" ? [nowIso()] : []));
  const [res] = await batchWithEvent(db, [burn], event);
  return res?.changes === 1;
}

export async function deleteTotp(db: D1Database, userId: string, event?: D1PreparedStatement) {
  await batchWithEvent(db, [db.prepare("DELETE FROM totp_factors WHERE user_id = ?").bind(userId)], event);
}

/**
 * Statements replacing the account's pool (the old codes die in the same batch), and the pool's id: the
 * id of its first code, which the owner notice's undo link names.
 */
export function replaceRecoveryPoolStatements(db: D1Database, userId: string, codeHashes: string[]) {
  const now = nowIso();
  const ids = codeHashes.map(() => newId());
  const statements = [
    db.prepare("DELETE FROM recovery_codes WHERE user_id = ?").bind(userId),
    ...codeHashes.map((hash, i) =>
      db
        .prepare(
          "INSERT INTO recovery_codes (id, user_id, code_hash, used_at, created_at) VALUES (?, ?, ?, NULL, ?)",
        )
        .bind(ids[i], userId, hash, now),
    ),
  ];
  return { poolId: ids[0]!, statements };
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
    .first<Computed<{ passkeys: number; phones: number; recovery: number }>>();
  return { passkeys: row?.passkeys ?? 0, phones: row?.phones ?? 0, recovery: row?.recovery ?? 0 };
}

/** What is left on an account to sign in with beside the password: a reset's mail lists it. */
export interface FactorsLeft {
  totp: boolean;
  /** The verified phone (E.164), null when none. */
  phone: string | null;
  passkeys: { name: string | null; created_at: string }[];
  recoveryCodes: number;
}

/** The account's factors, passkeys and unused recovery codes, read in one batch (one snapshot). */
export async function factorsLeft(db: D1Database, userId: string): Promise<FactorsLeft> {
  const [totp, phone, passkeys, recovery] = await batch(db, [
    query<Computed<{ ok: number }>>(
      db,
      "SELECT 1 AS ok FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL",
      userId,
    ),
    query<Row<typeof phones, "e164">>(
      db,
      "SELECT e164 FROM phones WHERE user_id = ? AND verified_at IS NOT NULL",
      userId,
    ),
    query<Row<typeof passkeysTable, "name" | "created_at">>(
      db,
      "SELECT name, created_at FROM passkeys WHERE user_id = ? ORDER BY created_at, id",
      userId,
    ),
    query<Computed<{ n: number }>>(
      db,
      "SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ? AND used_at IS NULL",
      userId,
    ),
  ]);
  return {
    totp: totp.rows.length > 0,
    phone: phone.rows[0]?.e164 ?? null,
    passkeys: passkeys.rows,
    recoveryCodes: recovery.rows[0]?.n ?? 0,
  };
}

/** The sign-in factors and the recovery pool an owner can disown, and the row that says when each came. */
export type FactorKind = "totp" | "phone" | "passkey" | "recovery";

const ADDED_AT: Record<FactorKind, string> = {
  totp: "SELECT confirmed_at FROM totp_factors WHERE user_id = ?2 AND id = ?3 AND confirmed_at IS NOT NULL",
  phone: "SELECT verified_at FROM phones WHERE user_id = ?2 AND id = ?3 AND verified_at IS NOT NULL",
  passkey: "SELECT created_at FROM passkeys WHERE user_id = ?2 AND id = ?3",
  recovery: "SELECT created_at FROM recovery_codes WHERE user_id = ?2 AND id = ?3",
};

const REMOVE: Record<FactorKind, string | null> = {
  totp: "DELETE FROM totp_factors WHERE user_id = ?2 AND id = ?3",
  phone: "DELETE FROM phones WHERE user_id = ?2 AND id = ?3",
  passkey: "DELETE FROM passkeys WHERE user_id = ?2 AND id = ?3",
  // The pool goes with the recovery-code statement of the batch (its codes all share one time).
  recovery: null,
};

/**
 * The owner's "this was not me" for a factor or a recovery pool, in one batch and only while it still
 * exists on that account: every session ends, open login challenges die (the credential epoch rises),
 * the recovery pool generated with it or since is voided (whoever added the factor may hold those codes),
 * and the factor goes, even the last strong one (it was never the owner's). False when already gone.
 * `events` (security events, conditioned on the removal) end the batch.
 */
export async function disownFactor(
  db: D1Database,
  kind: FactorKind,
  userId: string,
  id: string,
  events: D1PreparedStatement[] = [],
) {
  const exists = `EXISTS (${ADDED_AT[kind]})`;
  const statements = [
    `UPDATE sessions SET revoked_at = ?1, revoked_reason = 'factor_disowned'
     WHERE user_id = ?2 AND revoked_at IS NULL AND ${exists}`,
    `UPDATE users SET credential_epoch = credential_epoch + 1, updated_at = ?1 WHERE id = ?2 AND ${exists}`,
    `DELETE FROM recovery_codes WHERE user_id = ?2 AND created_at >= (${ADDED_AT[kind]})`,
    REMOVE[kind],
  ].filter((sql): sql is string => sql !== null);
  const now = nowIso();
  // The removal runs last, so the events (each conditioned on the one before) follow it in the batch.
  const outcomes = await batch(db, [
    ...statements.map((sql) => db.prepare(sql).bind(now, userId, id)),
    ...events,
  ]);
  return (outcomes[1]?.changes ?? 0) === 1;
}
