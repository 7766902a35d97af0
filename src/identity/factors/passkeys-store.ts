/**
 * Passkeys (WebAuthn credentials) and their open registration ceremonies. Queries go through drizzle's
 * query builder, except the limited insert (`INSERT … SELECT` with the count in its guard) and the reset's
 * DELETE … RETURNING typed for a mixed batch.
 */
import { and, asc, count, eq, exists, gt, isNotNull, lt, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { passkeyCeremonies, passkeys, totpFactors } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import { type Outcome, query } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { isUniqueViolation } from "../core/d1-errors";
import { batchWithEvent } from "../events/store";

export type PasskeyRow = Pick<
  typeof passkeys.$inferSelect,
  "id" | "credential_id" | "public_key" | "counter" | "transports"
>;

export interface PasskeyItem {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Can sign in alone (a discoverable credential); null when the browser did not say. */
  discoverable: boolean | null;
}

export function discoverableFlag(stored: number | null): boolean | null {
  return stored === null ? null : stored === 1;
}

export async function hasPasskeys(db: D1Database, userId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(passkeys)
    .where(eq(passkeys.user_id, userId))
    .limit(1)
    .get();
  return row !== undefined;
}

export async function passkeyCredentials(db: D1Database, userId: string) {
  return drizzle(db)
    .select({ credential_id: passkeys.credential_id, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.user_id, userId))
    .all();
}

/** The account's own credential with that id (another account's credential is simply not found). */
export async function findPasskey(
  db: D1Database,
  userId: string,
  credentialId: string,
): Promise<PasskeyRow | null> {
  const row = await drizzle(db)
    .select({
      id: passkeys.id,
      credential_id: passkeys.credential_id,
      public_key: passkeys.public_key,
      counter: passkeys.counter,
      transports: passkeys.transports,
    })
    .from(passkeys)
    .where(and(eq(passkeys.user_id, userId), eq(passkeys.credential_id, credentialId)))
    .get();
  return row ?? null;
}

/** Any account's credential with that id (passkey-first sign-in: the credential names its account). */
export async function findPasskeyByCredentialId(
  db: D1Database,
  credentialId: string,
): Promise<(PasskeyRow & { user_id: string }) | null> {
  const row = await drizzle(db)
    .select({
      id: passkeys.id,
      user_id: passkeys.user_id,
      credential_id: passkeys.credential_id,
      public_key: passkeys.public_key,
      counter: passkeys.counter,
      transports: passkeys.transports,
    })
    .from(passkeys)
    .where(eq(passkeys.credential_id, credentialId))
    .get();
  return row ?? null;
}

/**
 * Stores the counter of a successful assertion; false when it did not advance (a cloned authenticator),
 * decided in the UPDATE so two concurrent assertions with the same counter cannot both pass.
 */
export async function advancePasskeyCounter(
  db: D1Database,
  id: string,
  newCounter: number,
): Promise<boolean> {
  const res = await drizzle(db)
    .update(passkeys)
    .set({ counter: newCounter, last_used_at: nowIso() })
    .where(
      and(
        eq(passkeys.id, id),
        or(lt(passkeys.counter, newCounter), and(eq(passkeys.counter, 0), sql`${newCounter} = 0`)),
      ),
    )
    .run();
  return res.meta.changes === 1;
}

export async function listPasskeys(db: D1Database, userId: string): Promise<{ results: PasskeyItem[] }> {
  const results = await drizzle(db)
    .select({
      id: passkeys.id,
      name: passkeys.name,
      created_at: passkeys.created_at,
      last_used_at: passkeys.last_used_at,
      discoverable: passkeys.discoverable,
    })
    .from(passkeys)
    .where(eq(passkeys.user_id, userId))
    .orderBy(asc(passkeys.created_at), asc(passkeys.id))
    .all();
  return { results: results.map((r) => ({ ...r, discoverable: discoverableFlag(r.discoverable) })) };
}

/** One open ceremony per account: a new one replaces the earlier. */
export async function openRegistrationCeremony(
  db: D1Database,
  userId: string,
  ceremony: { challenge: string; expiresAt: string; steppedUp: boolean },
) {
  await drizzle(db)
    .insert(passkeyCeremonies)
    .values({
      user_id: userId,
      challenge: ceremony.challenge,
      expires_at: ceremony.expiresAt,
      stepped_up: ceremony.steppedUp ? 1 : 0,
    })
    .onConflictDoUpdate({
      target: passkeyCeremonies.user_id,
      set: {
        challenge: sql`excluded.challenge`,
        expires_at: sql`excluded.expires_at`,
        stepped_up: sql`excluded.stepped_up`,
      },
    })
    .run();
}

/**
 * Takes the open ceremony's challenge (and whether it was opened with the step-up), consuming it: a
 * challenge is good for one attempt.
 */
export async function takeRegistrationChallenge(db: D1Database, userId: string) {
  const row = await drizzle(db)
    .delete(passkeyCeremonies)
    .where(and(eq(passkeyCeremonies.user_id, userId), gt(passkeyCeremonies.expires_at, nowIso())))
    .returning({ challenge: passkeyCeremonies.challenge, stepped_up: passkeyCeremonies.stepped_up })
    .get();
  return row ? { challenge: row.challenge, steppedUp: row.stepped_up === 1 } : null;
}

/**
 * Stores a passkey registered through a ceremony opened with the step-up (`stepped_up` 1). The limit is
 * checked inside the INSERT, so concurrent registrations cannot exceed it.
 */
export async function insertPasskey(
  db: D1Database,
  input: {
    id: string;
    userId: string;
    credentialId: string;
    publicKey: string;
    counter: number;
    transports: string | null;
    discoverable: 0 | 1 | null;
    name: string | null;
    createdAt: string;
  },
  limit: number,
  event?: D1PreparedStatement,
): Promise<"ok" | "duplicate" | "limit"> {
  let inserted: Outcome<never> | undefined;
  try {
    const insert = db
      .prepare(
        `INSERT INTO passkeys
           (id, user_id, credential_id, public_key, counter, transports, discoverable, name, created_at, stepped_up)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1 WHERE (SELECT COUNT(*) FROM passkeys WHERE user_id = ?2) < ?10`,
      )
      .bind(
        input.id,
        input.userId,
        input.credentialId,
        input.publicKey,
        input.counter,
        input.transports,
        input.discoverable,
        input.name,
        input.createdAt,
        limit,
      );
    [inserted] = await batchWithEvent(db, [insert], event);
  } catch (err) {
    if (isUniqueViolation(err)) return "duplicate";
    throw err;
  }
  return inserted?.changes === 1 ? "ok" : "limit";
}

/** A passkey a password reset ended: what the reset's mail names it by. */
export type EndedPasskey = Row<typeof passkeys, "name" | "created_at">;

/**
 * The DELETE, for a password reset's own batch, of every passkey of the account registered without the
 * step-up (issue 31: those from before it included), returning what it ended. Such a passkey may be a
 * stolen access token's, and it signs in alone: the reset that takes the account back must end it.
 */
export function endPasskeysWithoutStepUpQuery(db: D1Database, userId: string) {
  return query<EndedPasskey>(
    db,
    "DELETE FROM passkeys WHERE user_id = ? AND stepped_up = 0 RETURNING name, created_at",
    userId,
  );
}

/**
 * Removes a passkey unless it is the account's last strong factor (no confirmed TOTP and no other
 * passkey); the condition is inside the DELETE so concurrent removals cannot strip both.
 */
export async function deletePasskey(
  db: D1Database,
  userId: string,
  id: string,
  event?: D1PreparedStatement,
): Promise<"deleted" | "not_found" | "last_strong_factor"> {
  const d = drizzle(db);
  const remove = d.delete(passkeys).where(
    and(
      eq(passkeys.id, id),
      eq(passkeys.user_id, userId),
      or(
        exists(
          d
            .select({ one: sql`1` })
            .from(totpFactors)
            .where(and(eq(totpFactors.user_id, userId), isNotNull(totpFactors.confirmed_at))),
        ),
        gt(d.select({ n: count() }).from(passkeys).where(eq(passkeys.user_id, userId)), 1),
      ),
    ),
  );
  const [res] = await batchWithEvent(db, [remove], event);
  if (res?.changes === 1) return "deleted";
  const found = await d
    .select({ ok: sql<number>`1` })
    .from(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.user_id, userId)))
    .get();
  return found ? "last_strong_factor" : "not_found";
}
