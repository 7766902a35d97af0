/**
 * TOTP factors and recovery codes (secrets sealed, codes stored as keyed hashes). Queries go through
 * drizzle's query builder, except the reads without a table (`SELECT (…) AS has`, the factor counts'
 * subqueries) and the factors-left batch of typed raw reads.
 */
import { and, eq, exists, gte, isNotNull, isNull, lt, not, or, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import {
  passkeys,
  type passkeys as passkeysTable,
  phones,
  recoveryCodes,
  sessions,
  totpFactors,
  users,
} from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { batch, prepared, query } from "../../lib/sql";
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

/** The builder's form of `hasFactorSql`: the account `userId` has a sign-in factor. */
function hasFactor(db: D1Database, userId: string): SQL {
  const d = drizzle(db);
  const one = { one: sql`1` };
  const totp = exists(
    d
      .select(one)
      .from(totpFactors)
      .where(and(eq(totpFactors.user_id, userId), isNotNull(totpFactors.confirmed_at))),
  );
  const phone = exists(
    d
      .select(one)
      .from(phones)
      .where(and(eq(phones.user_id, userId), isNotNull(phones.verified_at))),
  );
  const passkey = exists(d.select(one).from(passkeys).where(eq(passkeys.user_id, userId)));
  return sql`(${totp} OR ${phone} OR ${passkey})`;
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
  await drizzle(db)
    .insert(totpFactors)
    .values({
      user_id: userId,
      id: newId(),
      secret_enc: sealedSecret,
      confirmed_at: null,
      last_used_step: null,
      created_at: nowIso(),
      stepped_up: steppedUp ? 1 : 0,
    })
    .onConflictDoUpdate({
      target: totpFactors.user_id,
      set: {
        id: sql`excluded.id`,
        secret_enc: sql`excluded.secret_enc`,
        created_at: sql`excluded.created_at`,
        stepped_up: sql`excluded.stepped_up`,
      },
      setWhere: isNull(totpFactors.confirmed_at),
    })
    .run();
}

/** Drops a pending enrollment (one that may no longer complete); a confirmed factor is kept. */
export async function deletePendingTotp(db: D1Database, userId: string) {
  await drizzle(db)
    .delete(totpFactors)
    .where(and(eq(totpFactors.user_id, userId), isNull(totpFactors.confirmed_at)))
    .run();
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
  const pending = mode === "pending";
  const burn = drizzle(db)
    .update(totpFactors)
    .set(pending ? { last_used_step: step, confirmed_at: nowIso() } : { last_used_step: step })
    .where(
      and(
        eq(totpFactors.user_id, userId),
        pending ? isNull(totpFactors.confirmed_at) : isNotNull(totpFactors.confirmed_at),
        or(isNull(totpFactors.last_used_step), lt(totpFactors.last_used_step, step)),
        pending ? or(eq(totpFactors.stepped_up, 1), not(hasFactor(db, userId))) : undefined,
      ),
    );
  const [res] = await batchWithEvent(db, [burn], event);
  return res?.changes === 1;
}

export async function deleteTotp(db: D1Database, userId: string, event?: D1PreparedStatement) {
  await batchWithEvent(db, [drizzle(db).delete(totpFactors).where(eq(totpFactors.user_id, userId))], event);
}

/**
 * Statements replacing the account's pool (the old codes die in the same batch), and the pool's id: the
 * id of its first code, which the owner notice's undo link names.
 */
export function replaceRecoveryPoolStatements(db: D1Database, userId: string, codeHashes: string[]) {
  const now = nowIso();
  const ids = codeHashes.map(() => newId());
  const d = drizzle(db);
  const statements = [
    prepared(db, d.delete(recoveryCodes).where(eq(recoveryCodes.user_id, userId))),
    ...codeHashes.map((hash, i) =>
      prepared(
        db,
        d
          .insert(recoveryCodes)
          .values({ id: ids[i]!, user_id: userId, code_hash: hash, used_at: null, created_at: now }),
      ),
    ),
  ];
  return { poolId: ids[0]!, statements };
}

/** Whether a pool was ever issued (used codes included). */
export async function hasRecoveryPool(db: D1Database, userId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(recoveryCodes)
    .where(eq(recoveryCodes.user_id, userId))
    .limit(1)
    .get();
  return row !== undefined;
}

export async function hasUnusedRecoveryCodes(db: D1Database, userId: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ ok: sql<number>`1` })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.user_id, userId), isNull(recoveryCodes.used_at)))
    .limit(1)
    .get();
  return row !== undefined;
}

/** Single use by compare-and-set. */
export async function useRecoveryCode(db: D1Database, userId: string, codeHash: string): Promise<boolean> {
  const res = await drizzle(db)
    .update(recoveryCodes)
    .set({ used_at: nowIso() })
    .where(
      and(
        eq(recoveryCodes.user_id, userId),
        eq(recoveryCodes.code_hash, codeHash),
        isNull(recoveryCodes.used_at),
      ),
    )
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

/** When the factor `id` of the account came (its row, only while it is there), per kind. */
function addedAt(db: D1Database, kind: FactorKind, userId: string, id: string) {
  const d = drizzle(db);
  switch (kind) {
    case "totp":
      return d
        .select({ at: totpFactors.confirmed_at })
        .from(totpFactors)
        .where(
          and(eq(totpFactors.user_id, userId), eq(totpFactors.id, id), isNotNull(totpFactors.confirmed_at)),
        );
    case "phone":
      return d
        .select({ at: phones.verified_at })
        .from(phones)
        .where(and(eq(phones.user_id, userId), eq(phones.id, id), isNotNull(phones.verified_at)));
    case "passkey":
      return d
        .select({ at: passkeys.created_at })
        .from(passkeys)
        .where(and(eq(passkeys.user_id, userId), eq(passkeys.id, id)));
    case "recovery":
      return d
        .select({ at: recoveryCodes.created_at })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.user_id, userId), eq(recoveryCodes.id, id)));
  }
}

/** The factor's removal; none for a recovery pool (it goes with the recovery-code statement of the batch). */
function removal(db: D1Database, kind: FactorKind, userId: string, id: string) {
  const d = drizzle(db);
  switch (kind) {
    case "totp":
      return d.delete(totpFactors).where(and(eq(totpFactors.user_id, userId), eq(totpFactors.id, id)));
    case "phone":
      return d.delete(phones).where(and(eq(phones.user_id, userId), eq(phones.id, id)));
    case "passkey":
      return d.delete(passkeys).where(and(eq(passkeys.user_id, userId), eq(passkeys.id, id)));
    case "recovery":
      return null;
  }
}

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
  const d = drizzle(db);
  const now = nowIso();
  const there = () => exists(addedAt(db, kind, userId, id));
  const remove = removal(db, kind, userId, id);
  // The removal runs last, so the events (each conditioned on the one before) follow it in the batch.
  const outcomes = await batch(db, [
    d
      .update(sessions)
      .set({ revoked_at: now, revoked_reason: "factor_disowned" })
      .where(and(eq(sessions.user_id, userId), isNull(sessions.revoked_at), there())),
    d
      .update(users)
      .set({ credential_epoch: sql`${users.credential_epoch} + 1`, updated_at: now })
      .where(and(eq(users.id, userId), there())),
    d
      .delete(recoveryCodes)
      .where(
        and(eq(recoveryCodes.user_id, userId), gte(recoveryCodes.created_at, addedAt(db, kind, userId, id))),
      ),
    ...(remove ? [remove] : []),
    ...events,
  ]);
  return (outcomes[1]?.changes ?? 0) === 1;
}
