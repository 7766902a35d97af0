/**
 * The addresses of an account beyond what login and signup need (see signup/accounts-store.ts), through
 * drizzle's query builder.
 */
import { and, asc, count, eq, exists, gt, isNotNull, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { emailAddresses, sessions, users } from "../../../schema/identity";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { batchWithEvent } from "../events/store";

export type EmailRow = Pick<
  typeof emailAddresses.$inferSelect,
  "id" | "address" | "verified_at" | "usable_at" | "is_primary" | "created_at"
>;

const COLUMNS = {
  id: emailAddresses.id,
  address: emailAddresses.address,
  verified_at: emailAddresses.verified_at,
  usable_at: emailAddresses.usable_at,
  is_primary: emailAddresses.is_primary,
  created_at: emailAddresses.created_at,
};

export async function listEmails(db: D1Database, userId: string): Promise<{ results: EmailRow[] }> {
  const results = await drizzle(db)
    .select(COLUMNS)
    .from(emailAddresses)
    .where(eq(emailAddresses.user_id, userId))
    .orderBy(asc(emailAddresses.created_at), asc(emailAddresses.id))
    .all();
  return { results };
}

export async function findEmailById(db: D1Database, userId: string, id: string): Promise<EmailRow | null> {
  const row = await drizzle(db)
    .select(COLUMNS)
    .from(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.user_id, userId)))
    .get();
  return row ?? null;
}

export async function findEmailByAddress(
  db: D1Database,
  userId: string,
  address: string,
): Promise<EmailRow | null> {
  const row = await drizzle(db)
    .select(COLUMNS)
    .from(emailAddresses)
    .where(and(eq(emailAddresses.user_id, userId), eq(emailAddresses.address, address)))
    .get();
  return row ?? null;
}

/** False when the account already holds the address. */
export async function insertPendingEmail(
  db: D1Database,
  input: { id: string; userId: string; address: string },
  event?: D1PreparedStatement,
): Promise<boolean> {
  try {
    const insert = drizzle(db).insert(emailAddresses).values({
      id: input.id,
      user_id: input.userId,
      address: input.address,
      verified_at: null,
      is_primary: 0,
      created_at: nowIso(),
    });
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
    const update = drizzle(db)
      .update(emailAddresses)
      .set({ verified_at: at, usable_at: usableAt })
      .where(and(eq(emailAddresses.id, id), isNull(emailAddresses.verified_at)));
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
  const d = drizzle(db);
  await batchWithEvent(
    db,
    [
      d
        .update(emailAddresses)
        .set({ is_primary: 0 })
        .where(and(eq(emailAddresses.user_id, userId), eq(emailAddresses.is_primary, 1))),
      d
        .update(emailAddresses)
        .set({ is_primary: 1, usable_at: null })
        .where(and(eq(emailAddresses.id, id), eq(emailAddresses.user_id, userId))),
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
  const remove = drizzle(db)
    .delete(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.user_id, userId)));
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
  const d = drizzle(db);
  const verified = d
    .select({ n: count() })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.user_id, userId), isNotNull(emailAddresses.verified_at)));
  const remove = d
    .delete(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.user_id, userId), gt(verified, 1)));
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
  const d = drizzle(db);
  const secondary = () =>
    and(eq(emailAddresses.id, id), eq(emailAddresses.user_id, userId), eq(emailAddresses.is_primary, 0));
  const stillThere = () => exists(d.select({ one: sql`1` }).from(emailAddresses).where(secondary()));
  // The DELETE runs last, so an event conditioned on it (`ifChanged`) follows it in the batch.
  const [, , removed] = await batchWithEvent(
    db,
    [
      d
        .update(sessions)
        .set({ revoked_at: now, revoked_reason: "email_disowned" })
        .where(and(eq(sessions.user_id, userId), isNull(sessions.revoked_at), stillThere())),
      d
        .update(users)
        .set({ credential_epoch: sql`${users.credential_epoch} + 1`, updated_at: now })
        .where(and(eq(users.id, userId), stillThere())),
      d.delete(emailAddresses).where(secondary()),
    ],
    event,
  );
  if (removed?.changes === 1) return "removed";
  return (await findEmailById(db, userId, id)) ? "primary" : "gone";
}
