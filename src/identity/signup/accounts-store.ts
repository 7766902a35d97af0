/** Accounts and their e-mail addresses, through drizzle's query builder. */
import { and, desc, eq, inArray, isNotNull, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { emailAddresses, otpCodes, users } from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { prepared } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import type { Locale } from "../messaging/messages";

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

/** True when the address row may sign in and recover now: proven and past its cooling-off. */
function usable(now: string): SQL | undefined {
  return and(
    isNotNull(emailAddresses.verified_at),
    or(isNull(emailAddresses.usable_at), lte(emailAddresses.usable_at, now)),
  );
}

/** The login candidate's columns, `verified` as given. */
function candidateColumns(verified: SQL<number>) {
  return {
    user_id: users.id,
    status: users.status,
    password_hash: users.password_hash,
    credential_epoch: users.credential_epoch,
    address: emailAddresses.address,
    verified,
  };
}

/**
 * The account an address logs into: the account holding it verified, else the newest account with it
 * pending (that one can only learn it is unverified, and only after its password matched). An address
 * still cooling off counts as not verified, so its password login is the stranger's 401.
 */
export async function findLoginCandidate(db: D1Database, address: string): Promise<LoginCandidate | null> {
  const row = await drizzle(db)
    .select(candidateColumns(sql<number>`${usable(nowIso())}`))
    .from(emailAddresses)
    .innerJoin(users, eq(users.id, emailAddresses.user_id))
    .where(eq(emailAddresses.address, address))
    .orderBy(desc(isNotNull(emailAddresses.verified_at)), desc(emailAddresses.created_at))
    .limit(1)
    .get();
  return row ?? null;
}

/**
 * Account holding the address verified and usable for sign-in and recovery (magic link, reset): an
 * address still cooling off has no owner here, exactly like an unknown one. `includeCoolingOff` finds
 * the holder anyway, for uses that are not a way into the account (the signup existing-account notice).
 */
export async function findVerifiedOwner(
  db: D1Database,
  address: string,
  options: { includeCoolingOff?: boolean } = {},
): Promise<LoginCandidate | null> {
  const condition = options.includeCoolingOff ? isNotNull(emailAddresses.verified_at) : usable(nowIso());
  const row = await drizzle(db)
    .select(candidateColumns(sql<number>`1`))
    .from(emailAddresses)
    .innerJoin(users, eq(users.id, emailAddresses.user_id))
    .where(and(eq(emailAddresses.address, address), condition))
    .get();
  return row ?? null;
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
  const row = await drizzle(db)
    .select({ address: emailAddresses.address })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.user_id, userId), eq(emailAddresses.is_primary, 1)))
    .get();
  return row?.address ?? null;
}

/**
 * The two rows of a new account: the user (`status`) and its primary address, proven at `now` when
 * `verified` (a provider vouched for it) or pending its code.
 */
export function accountStatements(
  db: D1Database,
  account: {
    userId: string;
    status: "pending_verification" | "active";
    passwordHash: string | null;
    displayName?: string | null;
    locale?: Locale;
    address: string;
    verified: boolean;
    now: string;
  },
): D1PreparedStatement[] {
  const { userId, now } = account;
  const d = drizzle(db);
  return [
    prepared(
      db,
      d.insert(users).values({
        id: userId,
        status: account.status,
        password_hash: account.passwordHash,
        ...(account.displayName !== undefined ? { display_name: account.displayName } : {}),
        ...(account.locale !== undefined ? { locale: account.locale } : {}),
        created_at: now,
        updated_at: now,
      }),
    ),
    prepared(
      db,
      d.insert(emailAddresses).values({
        id: newId(),
        user_id: userId,
        address: account.address,
        verified_at: account.verified ? now : null,
        is_primary: 1,
        created_at: now,
      }),
    ),
  ];
}

/** Statements creating an account in pending_verification with its (pending, primary) address. */
export function pendingAccountStatements(
  db: D1Database,
  address: string,
  passwordHash: string,
  locale: Locale = "en",
) {
  const userId = newId();
  const status = "pending_verification";
  const statements = accountStatements(db, {
    userId,
    status,
    passwordHash,
    locale,
    address,
    verified: false,
    now: nowIso(),
  });
  return { userId, statements };
}

/**
 * Proves the signup address: the address becomes verified and the account active (run in one batch with
 * the first session). The unique index on verified addresses makes a second account proving the same
 * address fail the batch. Other accounts' pending codes for the address die with it.
 */
export function activationStatements(db: D1Database, userId: string, address: string): D1PreparedStatement[] {
  const now = nowIso();
  const d = drizzle(db);
  return [
    d
      .update(emailAddresses)
      .set({ verified_at: now })
      .where(
        and(
          eq(emailAddresses.user_id, userId),
          eq(emailAddresses.address, address),
          isNull(emailAddresses.verified_at),
        ),
      ),
    d
      .update(users)
      .set({ status: "active", updated_at: now })
      .where(and(eq(users.id, userId), eq(users.status, "pending_verification"))),
    d
      .update(otpCodes)
      .set({ used_at: now })
      .where(
        and(eq(otpCodes.purpose, "email_verify"), eq(otpCodes.target, address), isNull(otpCodes.used_at)),
      ),
  ].map((write) => prepared(db, write));
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
  const d = drizzle(db);
  return [
    d
      .update(users)
      .set({
        password_hash: passwordHash,
        updated_at: now,
        credential_epoch: sql`${users.credential_epoch} + 1`,
      })
      .where(eq(users.id, userId)),
    d
      .update(otpCodes)
      .set({ used_at: now })
      .where(
        and(
          isNull(otpCodes.used_at),
          inArray(otpCodes.purpose, [...PASSWORD_VOIDED_PURPOSES]),
          or(
            eq(otpCodes.user_id, userId),
            and(
              isNull(otpCodes.user_id),
              inArray(
                otpCodes.target,
                d
                  .select({ address: emailAddresses.address })
                  .from(emailAddresses)
                  .where(eq(emailAddresses.user_id, userId)),
              ),
            ),
          ),
        ),
      ),
  ].map((write) => prepared(db, write));
}

/** The account's credential epoch (null: no such account). */
export async function credentialEpoch(db: D1Database, userId: string): Promise<number | null> {
  const row = await drizzle(db)
    .select({ credential_epoch: users.credential_epoch })
    .from(users)
    .where(eq(users.id, userId))
    .get();
  return row?.credential_epoch ?? null;
}

/** A write that changes nothing, for a decoy batch shaped like a real one. */
export function noOpUserStatement(db: D1Database, userId: string) {
  return prepared(
    db,
    drizzle(db)
      .update(users)
      .set({ updated_at: sql`${users.updated_at}` })
      .where(eq(users.id, userId)),
  );
}

/** Only upgrades when the stored hash is still the one that was verified (a concurrent change wins). */
export async function upgradePasswordHash(db: D1Database, userId: string, oldHash: string, newHash: string) {
  await drizzle(db)
    .update(users)
    .set({ password_hash: newHash, updated_at: nowIso() })
    .where(and(eq(users.id, userId), eq(users.password_hash, oldHash)))
    .run();
}
