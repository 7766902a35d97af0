/**
 * The account's phone as a second factor. A number stays out of `phones` until proven: while pending it
 * lives only in its `phone_verify` code. Queries go through drizzle's query builder, except the save
 * (`INSERT … SELECT` guarded by the factor rule).
 */

import { and, desc, eq, gt, isNotNull, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { otpCodes, phones } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import { nowIso } from "../core/crypto";
import { batchWithEvent } from "../events/store";
import { hasFactorSql } from "./store";

export async function verifiedPhone(db: D1Database, userId: string): Promise<string | null> {
  const row = await drizzle(db)
    .select({ e164: phones.e164 })
    .from(phones)
    .where(and(eq(phones.user_id, userId), isNotNull(phones.verified_at)))
    .get();
  return row?.e164 ?? null;
}

function retirePhoneCodesStatement(db: D1Database, userId: string) {
  return drizzle(db)
    .update(otpCodes)
    .set({ used_at: nowIso() })
    .where(and(eq(otpCodes.purpose, "phone_verify"), eq(otpCodes.user_id, userId), isNull(otpCodes.used_at)));
}

/** Ends every pending verification of the account (a new number replaces the one being proven). */
export async function retirePendingPhoneCodes(db: D1Database, userId: string) {
  await retirePhoneCodesStatement(db, userId).run();
}

/** The latest live verification: the number being proven and its attempts. */
export async function pendingPhoneVerification(db: D1Database, userId: string) {
  const row = await drizzle(db)
    .select({
      target: otpCodes.target,
      attempts: otpCodes.attempts,
      max_attempts: otpCodes.max_attempts,
      context: otpCodes.context,
    })
    .from(otpCodes)
    .where(
      and(
        eq(otpCodes.purpose, "phone_verify"),
        eq(otpCodes.user_id, userId),
        isNull(otpCodes.used_at),
        gt(otpCodes.expires_at, nowIso()),
      ),
    )
    .orderBy(desc(otpCodes.created_at))
    .limit(1)
    .get();
  return row ?? null;
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
    drizzle(db).delete(phones).where(eq(phones.user_id, userId)),
  ];
  await batchWithEvent(db, statements, event);
}
