/** The addresses of an account beyond what login and signup need (see signup/accounts-store.ts). */
import type { emailAddresses } from "../../../schema/identity";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { batchWithEvent } from "../events/store";

export type EmailRow = Pick<
  typeof emailAddresses.$inferSelect,
  "id" | "address" | "verified_at" | "usable_at" | "is_primary" | "created_at"
>;

const COLUMNS = "id, address, verified_at, usable_at, is_primary, created_at";

export function listEmails(db: D1Database, userId: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM email_addresses WHERE user_id = ? ORDER BY created_at, id`)
    .bind(userId)
    .all<EmailRow>();
}

export function findEmailById(db: D1Database, userId: string, id: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM email_addresses WHERE id = ? AND user_id = ?`)
    .bind(id, userId)
    .first<EmailRow>();
}

export function findEmailByAddress(db: D1Database, userId: string, address: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM email_addresses WHERE user_id = ? AND address = ?`)
    .bind(userId, address)
    .first<EmailRow>();
}

/** False when the account already holds the address. */
export async function insertPendingEmail(
  db: D1Database,
  input: { id: string; userId: string; address: string },
  event?: D1PreparedStatement,
): Promise<boolean> {
  try {
    const insert = db
      .prepare(
        "INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at) VALUES (?, ?, ?, NULL, 0, ?)",
      )
      .bind(input.id, input.userId, input.address, nowIso());
    await batchWithEvent(db, [insert], event);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/**
 * Marks the address proven at `at` and usable for sign-in and recovery from `usableAt` (the cooling-off)
 * in one statement. False when another account proved the address first: the unique index on verified
 * addresses decides which account keeps it.
 */
export async function markEmailVerified(
  db: D1Database,
  id: string,
  at: string,
  usableAt: string,
  event?: D1PreparedStatement,
): Promise<boolean> {
  try {
    const update = db
      .prepare(
        "UPDATE email_addresses SET verified_at = ?, usable_at = ? WHERE id = ? AND verified_at IS NULL",
      )
      .bind(at, usableAt, id);
    await batchWithEvent(db, [update], event);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/** The promotion was approved with a code sent to the current primary: it ends the cooling-off too. */
export async function makeEmailPrimary(
  db: D1Database,
  userId: string,
  id: string,
  event?: D1PreparedStatement,
) {
  await batchWithEvent(
    db,
    [
      db
        .prepare("UPDATE email_addresses SET is_primary = 0 WHERE user_id = ? AND is_primary = 1")
        .bind(userId),
      db
        .prepare("UPDATE email_addresses SET is_primary = 1, usable_at = NULL WHERE id = ? AND user_id = ?")
        .bind(id, userId),
    ],
    event,
  );
}

export async function removePendingEmail(
  db: D1Database,
  userId: string,
  id: string,
  event?: D1PreparedStatement,
) {
  const remove = db.prepare("DELETE FROM email_addresses WHERE id = ? AND user_id = ?").bind(id, userId);
  await batchWithEvent(db, [remove], event);
}

/**
 * Removes a verified address unless it is the account's last verified one (false then). The count is
 * inside the DELETE so two concurrent removals cannot leave zero verified addresses.
 */
export async function removeVerifiedEmail(
  db: D1Database,
  userId: string,
  id: string,
  event?: D1PreparedStatement,
): Promise<boolean> {
  const remove = db
    .prepare(
      `DELETE FROM email_addresses WHERE id = ? AND user_id = ?
         AND (SELECT COUNT(*) FROM email_addresses WHERE user_id = ? AND verified_at IS NOT NULL) > 1`,
    )
    .bind(id, userId, userId);
  const [res] = await batchWithEvent(db, [remove], event);
  return (res?.changes ?? 0) !== 0;
}

/**
 * Removes a non-primary address of the account and revokes every session of the account in one batch.
 * The revocation is conditioned on the address still being there, so a second click on the same link
 * ends no session started since. "primary": the address is now the primary one, nothing changed.
 */
export async function disownEmail(
  db: D1Database,
  userId: string,
  id: string,
  event?: D1PreparedStatement,
): Promise<"removed" | "gone" | "primary"> {
  const now = nowIso();
  // The DELETE runs last, so an event conditioned on it (`ifChanged`) follows it in the batch.
  const [, , removed] = await batchWithEvent(
    db,
    [
      db
        .prepare(
          `UPDATE sessions SET revoked_at = ?, revoked_reason = 'email_disowned'
           WHERE user_id = ? AND revoked_at IS NULL
             AND EXISTS (SELECT 1 FROM email_addresses WHERE id = ? AND user_id = ? AND is_primary = 0)`,
        )
        .bind(now, userId, id, userId),
      db
        .prepare(
          `UPDATE users SET credential_epoch = credential_epoch + 1, updated_at = ?1 WHERE id = ?2
             AND EXISTS (SELECT 1 FROM email_addresses WHERE id = ?3 AND user_id = ?2 AND is_primary = 0)`,
        )
        .bind(now, userId, id),
      db
        .prepare("DELETE FROM email_addresses WHERE id = ? AND user_id = ? AND is_primary = 0")
        .bind(id, userId),
    ],
    event,
  );
  if (removed?.changes === 1) return "removed";
  return (await findEmailById(db, userId, id)) ? "primary" : "gone";
}
