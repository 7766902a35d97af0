/**
 * The account's deletion in the identity database (issue 24 §2): the request (one batch, the last-owner
 * rule evaluated inside its INSERT), the cancel, and the erasure after the grace period (one batch whose
 * first statement claims the row, so the erasure runs once however often the cron runs).
 */

import { and, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { accountDeletions, type orgMemberships, type orgs as orgsTable } from "../../../schema/identity";
import type { Computed, Present, Row } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
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

/** SQL true while the account `?1` has a deletion pending (not yet erased). */
const PENDING = "EXISTS (SELECT 1 FROM account_deletions d WHERE d.user_id = ?1 AND d.erased_at IS NULL)";

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
) {
  return [
    db
      .prepare(
        `INSERT INTO account_deletions (user_id, requested_at, erase_after)
         SELECT ?1, ?2, ?3 WHERE NOT EXISTS (${lastOwnerSql("org")}) AND NOT EXISTS (${lastOwnerSql("site")})
         ON CONFLICT DO NOTHING`,
      )
      .bind(userId, at.now, at.eraseAfter),
    event,
    db
      .prepare(
        `UPDATE users SET status = 'disabled', credential_epoch = credential_epoch + 1, updated_at = ?2
         WHERE id = ?1 AND status = 'active' AND ${PENDING}`,
      )
      .bind(userId, at.now),
    db
      .prepare(
        `UPDATE sessions SET revoked_at = ?2, revoked_reason = 'account_deleted'
         WHERE user_id = ?1 AND revoked_at IS NULL AND ${PENDING}`,
      )
      .bind(userId, at.now),
    db
      .prepare(
        `UPDATE otp_codes SET used_at = ?2
         WHERE used_at IS NULL AND ${PENDING}
           AND (user_id = ?1
                OR (user_id IS NULL AND target IN (SELECT address FROM email_addresses WHERE user_id = ?1)))`,
      )
      .bind(userId, at.now),
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
) {
  return [
    db
      .prepare("DELETE FROM account_deletions WHERE user_id = ?1 AND erased_at IS NULL AND erase_after > ?2")
      .bind(userId, now),
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
  const { results } = await db
    .prepare(
      `SELECT d.user_id, (SELECT address FROM email_addresses e WHERE e.user_id = d.user_id AND e.is_primary = 1) AS address
       FROM account_deletions d WHERE d.erased_at IS NULL AND d.erase_after <= ? ORDER BY d.erase_after LIMIT ?`,
    )
    .bind(now, limit)
    .all<Row<typeof accountDeletions, "user_id"> & Computed<{ address: string | null }>>();
  return results;
}

/** The organizations the account is a member of (their titular owner may pass on at the erasure). */
export async function memberOrgIds(db: D1Database, userId: string): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT org_id FROM org_memberships WHERE user_id = ?")
    .bind(userId)
    .all<Row<typeof orgMemberships, "org_id">>();
  return results.map((r) => r.org_id);
}

/** SQL true once this run's claim (`erased_at = ?2`) is the row's: every erasing statement needs it. */
const CLAIMED = "EXISTS (SELECT 1 FROM account_deletions d WHERE d.user_id = ?1 AND d.erased_at = ?2)";

/** Tables whose rows are the account's personal data or credentials: they go at the erasure. */
const ERASED_TABLES = [
  "email_addresses",
  "phones",
  "totp_factors",
  "recovery_codes",
  "passkeys",
  "passkey_ceremonies",
  "sessions",
  "org_memberships",
  "site_memberships",
  "platform_operators",
  "transfer_ended_site_memberships",
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
) {
  return [
    db
      .prepare(
        "UPDATE account_deletions SET erased_at = ?2 WHERE user_id = ?1 AND erased_at IS NULL AND erase_after <= ?2",
      )
      .bind(userId, now),
    event,
    db
      .prepare(
        `DELETE FROM otp_codes WHERE ${CLAIMED}
           AND (user_id = ?1 OR target IN (SELECT address FROM email_addresses WHERE user_id = ?1))`,
      )
      .bind(userId, now),
    ...ERASED_TABLES.map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE user_id = ?1 AND ${CLAIMED}`).bind(userId, now),
    ),
    db
      .prepare(
        `UPDATE users SET password_hash = NULL, display_name = NULL, status = 'disabled', updated_at = ?2
         WHERE id = ?1 AND ${CLAIMED}`,
      )
      .bind(userId, now),
    ...orgIds.map((orgId) => titularFixup(db, orgId)),
  ];
}

/** Erased accounts content has not been told of yet. */
export async function unnotifiedErasures(db: D1Database, limit: number) {
  const { results } = await db
    .prepare(
      "SELECT user_id, erased_at FROM account_deletions WHERE erased_at IS NOT NULL AND content_notified_at IS NULL LIMIT ?",
    )
    .bind(limit)
    .all<Present<Row<typeof accountDeletions, "user_id" | "erased_at">, "erased_at">>();
  return results;
}

export function markContentNotified(db: D1Database, userId: string, now: string) {
  return db
    .prepare(
      "UPDATE account_deletions SET content_notified_at = ? WHERE user_id = ? AND content_notified_at IS NULL",
    )
    .bind(now, userId)
    .run();
}
