/**
 * The account's phone as a second factor. A number stays out of `phones` until proven: while pending it
 * lives only in its `phone_verify` code.
 */

import type { otpCodes, phones } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Row } from "../../lib/rows";
import { nowIso } from "../core/crypto";
import { batchWithEvent } from "../events/store";
import { hasFactorSql } from "./store";

export async function verifiedPhone(db: D1Database, userId: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT e164 FROM phones WHERE user_id = ? AND verified_at IS NOT NULL")
    .bind(userId)
    .first<Row<typeof phones, "e164">>();
  return row?.e164 ?? null;
}

function retirePhoneCodesStatement(db: D1Database, userId: string) {
  return db
    .prepare(
      "UPDATE otp_codes SET used_at = ? WHERE purpose = 'phone_verify' AND user_id = ? AND used_at IS NULL",
    )
    .bind(nowIso(), userId);
}

/** Ends every pending verification of the account (a new number replaces the one being proven). */
export async function retirePendingPhoneCodes(db: D1Database, userId: string) {
  await retirePhoneCodesStatement(db, userId).run();
}

/** The latest live verification: the number being proven and its attempts. */
export function pendingPhoneVerification(db: D1Database, userId: string) {
  return db
    .prepare(
      `SELECT target, attempts, max_attempts, context FROM otp_codes
       WHERE purpose = 'phone_verify' AND user_id = ? AND used_at IS NULL AND expires_at > ?
       ORDER BY created_at DESC LIMIT 1`,
    )
    .bind(userId, nowIso())
    .first<Row<typeof otpCodes, "target" | "attempts" | "max_attempts" | "context">>();
}

/**
 * One phone per account: a proven number (with a new id) replaces the earlier one. Without the step-up
 * (`steppedUp` false) only while the account has no factor, decided inside the write; null if refused.
 * `event` (with `ifChanged`) follows the write in its batch.
 */
export async function saveVerifiedPhone(
  db: D1Database,
  userId: string,
  e164: string,
  steppedUp: boolean,
  event?: D1PreparedStatement,
): Promise<string | null> {
  const now = nowIso();
  const id = newId();
  const save = db
    .prepare(
      `INSERT INTO phones (user_id, e164, verified_at, created_at, id)
       SELECT ?1, ?2, ?3, ?3, ?4 WHERE ?5 = 1 OR NOT ${hasFactorSql("?1")}
       ON CONFLICT (user_id) DO UPDATE SET e164 = excluded.e164, verified_at = excluded.verified_at, id = excluded.id`,
    )
    .bind(userId, e164, now, id, steppedUp ? 1 : 0);
  const [res] = await batchWithEvent(db, [save], event);
  return res?.changes === 1 ? id : null;
}

/** Removes the phone and any verification in progress. */
export async function removePhone(db: D1Database, userId: string, event?: D1PreparedStatement) {
  // The DELETE runs last, so an event conditioned on it (`ifChanged`) follows it in the batch.
  const statements = [
    retirePhoneCodesStatement(db, userId),
    db.prepare("DELETE FROM phones WHERE user_id = ?").bind(userId),
  ];
  await batchWithEvent(db, statements, event);
}
