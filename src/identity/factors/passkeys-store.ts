/** Passkeys (WebAuthn credentials) and their open registration ceremonies. */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type passkeyCeremonies, passkeys } from "../../../schema/identity";
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
  const row = await db.prepare("SELECT 1 AS ok FROM passkeys WHERE user_id = ? LIMIT 1").bind(userId).first();
  return row !== null;
}

export async function passkeyCredentials(db: D1Database, userId: string) {
  const { results } = await db
    .prepare("SELECT credential_id, transports FROM passkeys WHERE user_id = ?")
    .bind(userId)
    .all<Row<typeof passkeys, "credential_id" | "transports">>();
  return results;
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
  const res = await db
    .prepare(
      "UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND (counter < ? OR (counter = 0 AND ? = 0))",
    )
    .bind(newCounter, nowIso(), id, newCounter, newCounter)
    .run();
  return res.meta.changes === 1;
}

export async function listPasskeys(db: D1Database, userId: string): Promise<{ results: PasskeyItem[] }> {
  const { results } = await db
    .prepare(
      "SELECT id, name, created_at, last_used_at, discoverable FROM passkeys WHERE user_id = ? ORDER BY created_at, id",
    )
    .bind(userId)
    .all<Row<typeof passkeys, "id" | "name" | "created_at" | "last_used_at" | "discoverable">>();
  return { results: results.map((r) => ({ ...r, discoverable: discoverableFlag(r.discoverable) })) };
}

/** One open ceremony per account: a new one replaces the earlier. */
export async function openRegistrationCeremony(
  db: D1Database,
  userId: string,
  ceremony: { challenge: string; expiresAt: string; steppedUp: boolean },
) {
  await db
    .prepare(
      `INSERT INTO passkey_ceremonies (user_id, challenge, expires_at, stepped_up) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at,
         stepped_up = excluded.stepped_up`,
    )
    .bind(userId, ceremony.challenge, ceremony.expiresAt, ceremony.steppedUp ? 1 : 0)
    .run();
}

/**
 * Takes the open ceremony's challenge (and whether it was opened with the step-up), consuming it: a
 * challenge is good for one attempt.
 */
export async function takeRegistrationChallenge(db: D1Database, userId: string) {
  const row = await db
    .prepare(
      "DELETE FROM passkey_ceremonies WHERE user_id = ? AND expires_at > ? RETURNING challenge, stepped_up",
    )
    .bind(userId, nowIso())
    .first<Row<typeof passkeyCeremonies, "challenge" | "stepped_up">>();
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
  const remove = db
    .prepare(
      `DELETE FROM passkeys WHERE id = ? AND user_id = ?
         AND (EXISTS (SELECT 1 FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL)
              OR (SELECT COUNT(*) FROM passkeys WHERE user_id = ?) > 1)`,
    )
    .bind(id, userId, userId, userId);
  const [res] = await batchWithEvent(db, [remove], event);
  if (res?.changes === 1) return "deleted";
  const exists = await db
    .prepare("SELECT 1 AS ok FROM passkeys WHERE id = ? AND user_id = ?")
    .bind(id, userId)
    .first();
  return exists ? "last_strong_factor" : "not_found";
}
