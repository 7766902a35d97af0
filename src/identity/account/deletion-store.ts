/**
 * The account's deletion in the identity database (issue 24 §2): the request (one batch, the last-owner
 * rule evaluated inside its INSERT), the cancel, and the erasure after the grace period (one batch whose
 * first statement claims the row, so the erasure runs once however often the cron runs). Queries go through
 * drizzle's query builder, except the last-owner reads and the request's `INSERT … SELECT` guarded by them
 * (the owner rule over role rows) and the cancel's reactivation chained on `changes()`.
 */

import { and, eq, exists, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import {
  accountDeletions,
  emailAddresses,
  oauthConsents,
  oauthGrants,
  orgMemberships,
  type orgs as orgsTable,
  otpCodes,
  passkeyCeremonies,
  passkeys,
  phones,
  platformOperators,
  recoveryCodes,
  sessions,
  siteMemberships,
  totpFactors,
  transferEndedSiteMemberships,
  users,
} from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { type BatchEntry, batch, query } from "../../lib/sql";
import { ownerRoleSql, pendingDeletionSql, titularFixup } from "../members/store";

/** How long a deleted account waits, disabled, before its personal data is erased. */
export const DELETION_GRACE_DAYS = 30;

export type DeletionRow = typeof accountDeletions.$inferSelect;

/** The organizations and sites the account is the last owner of (an owner pending deletion is none). */
function lastOwnerSql(scope: "org" | "site"): string {
  const table = scope === "org" ? "org_memberships" : "site_memberships";
  const column = scope === "org" ? "org_id" : "site_id";
  return `SELECT m.${column} AS id FROM ${table} m
          WHERE m.user_id = ?1 AND ${ownerRoleSql(scope, "m")}
            AND NOT EXISTS (SELECT 1 FROM ${table} WHERE ${table}.${column} = m.${column}
              AND ${table}.user_id != ?1 AND ${ownerRoleSql(scope, table)}
              AND NOT ${pendingDeletionSql(`${table}.user_id`)})`;
}

export async function lastOwnerships(db: D1Database, userId: string) {
  const [orgs, sites] = await batch(db, [
    query<Row<typeof orgsTable, "id" | "name">>(
      db,
      `SELECT o.id, o.name FROM orgs o WHERE o.id IN (${lastOwnerSql("org")}) ORDER BY o.name, o.id LIMIT 100`,
      userId,
    ),
    // `lastOwnerSql` names the site's id `id`.
    query<Computed<{ id: string }>>(
      db,
      `SELECT id FROM (${lastOwnerSql("site")}) ORDER BY id LIMIT 100`,
      userId,
    ),
  ]);
  return { orgs: orgs.rows, siteIds: sites.rows.map((r) => r.id) };
}

/** True while the account `userId` has a deletion pending (not yet erased). */
function pending(db: D1Database, userId: string) {
  const d = alias(accountDeletions, "d");
  return exists(
    drizzle(db)
      .select({ one: sql`1` })
      .from(d)
      .where(and(eq(d.user_id, userId), isNull(d.erased_at))),
  );
}

/** The addresses of account `userId`. */
function addressesOf(db: D1Database, userId: string) {
  return drizzle(db)
    .select({ address: emailAddresses.address })
    .from(emailAddresses)
    .where(eq(emailAddresses.user_id, userId));
}

/**
 * The deletion request's batch: the pending row (only when the account is nobody's last owner: the
 * guard is inside the INSERT, so two owners leaving at once cannot both pass), then, only while it is
 * pending, the account disabled with its credential epoch raised (open login challenges and codes in
 * flight can no longer open a session), every session revoked and every unconsumed code voided.
 * `event` (conditioned on the INSERT) is the account's security event.
 */
export function requestDeletionStatements(
  db: D1Database,
  userId: string,
  at: { now: string; eraseAfter: string },
  event: D1PreparedStatement,
): BatchEntry[] {
  const d = drizzle(db);
  return [
    db
      .prepare(
        `INSERT INTO account_deletions (user_id, requested_at, erase_after)
         SELECT ?1, ?2, ?3 WHERE NOT EXISTS (${lastOwnerSql("org")}) AND NOT EXISTS (${lastOwnerSql("site")})
         ON CONFLICT DO NOTHING`,
      )
      .bind(userId, at.now, at.eraseAfter),
    event,
    d
      .update(users)
      .set({ status: "disabled", credential_epoch: sql`${users.credential_epoch} + 1`, updated_at: at.now })
      .where(and(eq(users.id, userId), eq(users.status, "active"), pending(db, userId))),
    d
      .update(sessions)
      .set({ revoked_at: at.now, revoked_reason: "account_deleted" })
      .where(and(eq(sessions.user_id, userId), isNull(sessions.revoked_at), pending(db, userId))),
    d
      .update(otpCodes)
      .set({ used_at: at.now })
      .where(
        and(
          isNull(otpCodes.used_at),
          pending(db, userId),
          or(
            eq(otpCodes.user_id, userId),
            and(isNull(otpCodes.user_id), inArray(otpCodes.target, addressesOf(db, userId))),
          ),
        ),
      ),
  ];
}

/** The account's deletion row (pending or erased), or null. */
export async function deletionOf(db: D1Database, userId: string): Promise<DeletionRow | null> {
  const row = await drizzle(db)
    .select()
    .from(accountDeletions)
    .where(eq(accountDeletions.user_id, userId))
    .get();
  return row ?? null;
}

/** A pending deletion still in its grace period at `now` (one that can be cancelled), or null. */
export async function cancellableDeletion(db: D1Database, userId: string, now: string) {
  const row = await drizzle(db)
    .select()
    .from(accountDeletions)
    .where(and(eq(accountDeletions.user_id, userId), isNull(accountDeletions.erased_at)))
    .get();
  return row && row.erase_after > now ? row : null;
}

/**
 * The cancel's batch: the pending row leaves (only within the grace period, never once erased) and the
 * account is active again, with its event, all conditioned on the DELETE.
 */
export function cancelDeletionStatements(
  db: D1Database,
  userId: string,
  now: string,
  event: D1PreparedStatement,
): BatchEntry[] {
  return [
    drizzle(db)
      .delete(accountDeletions)
      .where(
        and(
          eq(accountDeletions.user_id, userId),
          isNull(accountDeletions.erased_at),
          gt(accountDeletions.erase_after, now),
        ),
      ),
    db
      .prepare(
        "UPDATE users SET status = 'active', updated_at = ?2 WHERE id = ?1 AND status = 'disabled' AND changes() > 0",
      )
      .bind(userId, now),
    event,
  ];
}

/** Accounts whose grace period ended by `now` and that are not erased yet (oldest first). */
export async function dueDeletions(db: D1Database, now: string, limit: number) {
  const d = drizzle(db);
  const primary = d
    .select({ address: emailAddresses.address })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.user_id, accountDeletions.user_id), eq(emailAddresses.is_primary, 1)));
  return d
    .select({ user_id: accountDeletions.user_id, address: sql<string | null>`(${primary})` })
    .from(accountDeletions)
    .where(and(isNull(accountDeletions.erased_at), lte(accountDeletions.erase_after, now)))
    .orderBy(accountDeletions.erase_after)
    .limit(limit)
    .all();
}

/** The organizations the account is a member of (their titular owner may pass on at the erasure). */
export async function memberOrgIds(db: D1Database, userId: string): Promise<string[]> {
  const results = await drizzle(db)
    .select({ org_id: orgMemberships.org_id })
    .from(orgMemberships)
    .where(eq(orgMemberships.user_id, userId))
    .all();
  return results.map((r) => r.org_id);
}

/** True once this run's claim (`erased_at = now`) is the row's: every erasing statement needs it. */
function claimed(db: D1Database, userId: string, now: string) {
  const d = alias(accountDeletions, "d");
  return exists(
    drizzle(db)
      .select({ one: sql`1` })
      .from(d)
      .where(and(eq(d.user_id, userId), eq(d.erased_at, now))),
  );
}

/** Tables whose rows are the account's personal data or credentials: they go at the erasure. */
const ERASED_TABLES = [
  emailAddresses,
  phones,
  totpFactors,
  recoveryCodes,
  passkeys,
  passkeyCeremonies,
  sessions,
  orgMemberships,
  siteMemberships,
  platformOperators,
  transferEndedSiteMemberships,
  // MCP agents' grants (their codes and refresh tokens cascade) and consents in progress (issue 37).
  oauthGrants,
  oauthConsents,
] as const;

/**
 * The erasure's batch. The first statement claims the row (compare-and-set on `erased_at IS NULL` past
 * the grace; a cancel that came first leaves nothing to claim), every other statement runs only under
 * that claim: addresses, phone, factors, passkeys, sessions, memberships and codes go; the users row stays
 * as a tombstone without password or name, so the security events keep its id as a pseudonymous one;
 * organizations the account owned titularly pass to their oldest remaining owner.
 */
export function eraseStatements(
  db: D1Database,
  userId: string,
  now: string,
  orgIds: string[],
  event: D1PreparedStatement,
): BatchEntry[] {
  const d = drizzle(db);
  return [
    d
      .update(accountDeletions)
      .set({ erased_at: now })
      .where(
        and(
          eq(accountDeletions.user_id, userId),
          isNull(accountDeletions.erased_at),
          lte(accountDeletions.erase_after, now),
        ),
      ),
    event,
    d
      .delete(otpCodes)
      .where(
        and(
          claimed(db, userId, now),
          or(eq(otpCodes.user_id, userId), inArray(otpCodes.target, addressesOf(db, userId))),
        ),
      ),
    ...ERASED_TABLES.map((table) =>
      d.delete(table).where(and(eq(table.user_id, userId), claimed(db, userId, now))),
    ),
    d
      .update(users)
      .set({ password_hash: null, display_name: null, status: "disabled", updated_at: now })
      .where(and(eq(users.id, userId), claimed(db, userId, now))),
    ...orgIds.map((orgId) => titularFixup(db, orgId)),
  ];
}

/** Erased accounts content has not been told of yet. */
export async function unnotifiedErasures(db: D1Database, limit: number) {
  return drizzle(db)
    .select({
      user_id: accountDeletions.user_id,
      // Present: the WHERE clause proves it.
      erased_at: sql<string>`${accountDeletions.erased_at}`,
    })
    .from(accountDeletions)
    .where(and(isNotNull(accountDeletions.erased_at), isNull(accountDeletions.content_notified_at)))
    .limit(limit)
    .all();
}

export function markContentNotified(db: D1Database, userId: string, now: string) {
  return drizzle(db)
    .update(accountDeletions)
    .set({ content_notified_at: now })
    .where(and(eq(accountDeletions.user_id, userId), isNull(accountDeletions.content_notified_at)))
    .run();
}
