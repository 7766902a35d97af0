/** What `GET /v1/auth/me` reads (account/me.ts): the account, its organizations and site memberships; the display name's and locale's write. */
import type { orgMemberships, orgs, siteMemberships, users } from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { query } from "../../lib/sql";
import { ownerRoleSql } from "../members/store";
import type { Locale } from "../messaging/messages";

/** The account with its primary address and how many of each factor it has. */
export type AccountRow = Row<typeof users, "id" | "created_at" | "display_name" | "locale"> &
  Computed<{
    has_password: number;
    email: string | null;
    totp: number;
    passkeys: number;
    phones: number;
    recovery: number;
  }>;

/** An organization of the caller, the caller's role there, and whether that role is the owner role. */
export type MeOrgRow = Row<typeof orgs, "id" | "name" | "slug"> &
  Row<typeof orgMemberships, "role"> &
  Computed<{ owner: number }>;

/** A site membership of the caller, and whether its role is the owner role. */
export type MeSiteRow = Row<typeof siteMemberships, "site_id" | "org_id" | "role"> &
  Computed<{ owner: number }>;

/** The account, then at most `limit` of its organizations and of its site memberships, oldest first: one batch. */
export function meQueries(db: D1Database, userId: string, limit: number) {
  return [
    query<AccountRow>(
      db,
      `SELECT u.id, u.created_at, u.display_name, u.locale, u.password_hash IS NOT NULL AS has_password,
           (SELECT address FROM email_addresses WHERE user_id = u.id AND is_primary = 1) AS email,
           (SELECT COUNT(*) FROM totp_factors WHERE user_id = u.id AND confirmed_at IS NOT NULL) AS totp,
           (SELECT COUNT(*) FROM passkeys WHERE user_id = u.id) AS passkeys,
           (SELECT COUNT(*) FROM phones WHERE user_id = u.id AND verified_at IS NOT NULL) AS phones,
           (SELECT COUNT(*) FROM recovery_codes WHERE user_id = u.id AND used_at IS NULL) AS recovery
         FROM users u WHERE u.id = ?1`,
      userId,
    ),
    query<MeOrgRow>(
      db,
      `SELECT o.id, o.name, o.slug, m.role, ${ownerRoleSql("org", "m")} AS owner
         FROM org_memberships m JOIN orgs o ON o.id = m.org_id
         WHERE m.user_id = ?1 ORDER BY o.created_at, o.id LIMIT ?2`,
      userId,
      limit,
    ),
    query<MeSiteRow>(
      db,
      `SELECT m.site_id, m.org_id, m.role, ${ownerRoleSql("site", "m")} AS owner
         FROM site_memberships m WHERE m.user_id = ?1 ORDER BY m.created_at, m.site_id LIMIT ?2`,
      userId,
      limit,
    ),
  ] as const;
}

/**
 * Sets what the caller sent of the account's display name (the byline of its posts) and locale (the
 * language of its mail), in one statement; false when the account no longer exists.
 */
export async function updateAccount(
  db: D1Database,
  userId: string,
  change: { display_name?: string; locale?: Locale },
  now: string,
): Promise<boolean> {
  const result = await db
    .prepare(
      "UPDATE users SET display_name = COALESCE(?1, display_name), locale = COALESCE(?2, locale), updated_at = ?3 WHERE id = ?4",
    )
    .bind(change.display_name ?? null, change.locale ?? null, now, userId)
    .run();
  return result.meta.changes > 0;
}

/** The account's display name, or null (none set, or no such account). */
export async function displayNameOf(db: D1Database, userId: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT display_name FROM users WHERE id = ?1")
    .bind(userId)
    .first<Row<typeof users, "display_name">>();
  return row?.display_name ?? null;
}
