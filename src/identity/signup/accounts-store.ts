/** Accounts and their e-mail addresses. */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type emailAddresses, users } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { nowIso } from "../core/crypto";

export type UserStatus = (typeof users.$inferSelect)["status"];

/**
 * The account an address may sign in to, with its hash. `credential_epoch` is read with the hash: a login
 * it proves opens a session only while the epoch is unchanged.
 */
export type LoginCandidate = Row<typeof emailAddresses, "user_id" | "address"> &
  Row<typeof users, "status" | "password_hash" | "credential_epoch"> &
  Computed<{ verified: number }>;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** SQL true when the address row `e` may sign in and recover now: proven and past its cooling-off. */
const USABLE = "(e.verified_at IS NOT NULL AND (e.usable_at IS NULL OR e.usable_at <= ?))";

/**
 * The account an address logs into: the account holding it verified, else the newest account with it
 * pending (that one can only learn it is unverified, and only after its password matched). An address
 * still cooling off counts as not verified, so its password login is the stranger's 401.
 */
export function findLoginCandidate(db: D1Database, address: string) {
  return db
    .prepare(
      `SELECT u.id AS user_id, u.status, u.password_hash, u.credential_epoch, e.address, ${USABLE} AS verified
       FROM email_addresses e JOIN users u ON u.id = e.user_id
       WHERE e.address = ?
       ORDER BY (e.verified_at IS NOT NULL) DESC, e.created_at DESC LIMIT 1`,
    )
    .bind(nowIso(), address)
    .first<LoginCandidate>();
}

/**
 * Account holding the address verified and usable for sign-in and recovery (magic link, reset): an
 * address still cooling off has no owner here, exactly like an unknown one. `includeCoolingOff` finds
 * the holder anyway, for uses that are not a way into the account (the signup existing-account notice).
 */
export function findVerifiedOwner(
  db: D1Database,
  address: string,
  options: { includeCoolingOff?: boolean } = {},
) {
  const condition = options.includeCoolingOff ? "e.verified_at IS NOT NULL" : USABLE;
  const params = options.includeCoolingOff ? [address] : [address, nowIso()];
  return db
    .prepare(
      `SELECT u.id AS user_id, u.status, u.password_hash, u.credential_epoch, e.address, 1 AS verified
       FROM email_addresses e JOIN users u ON u.id = e.user_id
       WHERE e.address = ? AND ${condition}`,
    )
    .bind(...params)
    .first<LoginCandidate>();
}

export type UserRow = Pick<
  typeof users.$inferSelect,
  "id" | "status" | "password_hash" | "created_at" | "credential_epoch"
>;

export async function getUser(db: D1Database, userId: string): Promise<UserRow | null> {
  const row = await drizzle(db)
    .select({
      id: users.id,
      status: users.status,
      password_hash: users.password_hash,
      created_at: users.created_at,
      credential_epoch: users.credential_epoch,
    })
    .from(users)
    .where(eq(users.id, userId))
    .get();
  return row ?? null;
}

export async function primaryEmail(db: D1Database, userId: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT address FROM email_addresses WHERE user_id = ? AND is_primary = 1")
    .bind(userId)
    .first<Row<typeof emailAddresses, "address">>();
  return row?.address ?? null;
}

/** Statements creating an account in pending_verification with its (pending, primary) address. */
export function pendingAccountStatements(db: D1Database, address: string, passwordHash: string) {
  const userId = newId();
  const now = nowIso();
  const statements = [
    db
      .prepare(
        "INSERT INTO users (id, status, password_hash, created_at, updated_at) VALUES (?, 'pending_verification', ?, ?, ?)",
      )
      .bind(userId, passwordHash, now, now),
    db
      .prepare(
        "INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at) VALUES (?, ?, ?, NULL, 1, ?)",
      )
      .bind(newId(), userId, address, now),
  ];
  return { userId, statements };
}

/**
 * Proves the signup address: the address becomes verified and the account active (run in one batch with
 * the first session). The unique index on verified addresses makes a second account proving the same
 * address fail the batch. Other accounts' pending codes for the address die with it.
 */
export function activationStatements(db: D1Database, userId: string, address: string): D1PreparedStatement[] {
  const now = nowIso();
  return [
    db
      .prepare(
        "UPDATE email_addresses SET verified_at = ? WHERE user_id = ? AND address = ? AND verified_at IS NULL",
      )
      .bind(now, userId, address),
    db
      .prepare(
        "UPDATE users SET status = 'active', updated_at = ? WHERE id = ? AND status = 'pending_verification'",
      )
      .bind(now, userId),
    db
      .prepare(
        "UPDATE otp_codes SET used_at = ? WHERE purpose = 'email_verify' AND target = ? AND used_at IS NULL",
      )
      .bind(now, address),
  ];
}

/** The one-time codes and link tokens a password change or reset voids (every purpose that lets in). */
const PASSWORD_VOIDED_PURPOSES = [
  "magic_link",
  "password_reset",
  "email_verify",
  "email_add",
  "sensitive_action",
] as const;

/**
 * The statements of a password change or reset, for one batch with the sessions' revocation: the new
 * hash, the credential epoch raised (every open login challenge, and any code consumed before this write
 * but not yet turned into a session, can no longer open one: sessions.ts, phased-login.ts), and every
 * unconsumed code and link token of the account voided: bound to it, or sent to one of its addresses
 * for no account (docs/decisions/step-up.md).
 */
export function setPasswordStatements(db: D1Database, userId: string, passwordHash: string) {
  const now = nowIso();
  const purposes = PASSWORD_VOIDED_PURPOSES.map((p) => `'${p}'`).join(", ");
  return [
    db
      .prepare(
        "UPDATE users SET password_hash = ?1, updated_at = ?2, credential_epoch = credential_epoch + 1 WHERE id = ?3",
      )
      .bind(passwordHash, now, userId),
    db
      .prepare(
        `UPDATE otp_codes SET used_at = ?1
         WHERE used_at IS NULL AND purpose IN (${purposes})
           AND (user_id = ?2
                OR (user_id IS NULL AND target IN (SELECT address FROM email_addresses WHERE user_id = ?2)))`,
      )
      .bind(now, userId),
  ];
}

/** The account's credential epoch (null: no such account). */
export async function credentialEpoch(db: D1Database, userId: string): Promise<number | null> {
  const row = await db
    .prepare("SELECT credential_epoch FROM users WHERE id = ?")
    .bind(userId)
    .first<Row<typeof users, "credential_epoch">>();
  return row?.credential_epoch ?? null;
}

/** A write that changes nothing, for a decoy batch shaped like a real one. */
export function noOpUserStatement(db: D1Database, userId: string) {
  return db.prepare("UPDATE users SET updated_at = updated_at WHERE id = ?").bind(userId);
}

/** Only upgrades when the stored hash is still the one that was verified (a concurrent change wins). */
export async function upgradePasswordHash(db: D1Database, userId: string, oldHash: string, newHash: string) {
  await db
    .prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?")
    .bind(newHash, nowIso(), userId, oldHash)
    .run();
}
