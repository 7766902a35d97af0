/**
 * Authorization codes and refresh tokens of the MCP agents' grants (issue 37, migration 0013,
 * docs/decisions/oauth-agents.md "Tokens"): hashes only, each single use by a compare-and-set, each written
 * in the batch that spends its predecessor so a lost race writes nothing.
 */
import { and, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthCodes, oauthGrants, oauthRefreshTokens, users } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import { prepared, query } from "../../lib/sql";

export type CodeRow = typeof oauthCodes.$inferSelect;

/** A grant as the token endpoint reads it: the grant's own columns and its person's account status. */
export type IssuingGrant = Row<
  typeof oauthGrants,
  "id" | "user_id" | "client_id" | "site_id" | "org_id" | "scope" | "resource" | "revoked_at" | "last_used_at"
> & { user_status: string | null };

/** One code by its hash, spent or not; null when there is none. */
export async function codeByHash(db: D1Database, codeHash: string): Promise<CodeRow | null> {
  const row = await drizzle(db).select().from(oauthCodes).where(eq(oauthCodes.code_hash, codeHash)).get();
  return row ?? null;
}

/** The grant and its person's status (null status: the account is gone). */
export async function issuingGrant(db: D1Database, grantId: string): Promise<IssuingGrant | null> {
  const row = await drizzle(db)
    .select({
      id: oauthGrants.id,
      user_id: oauthGrants.user_id,
      client_id: oauthGrants.client_id,
      site_id: oauthGrants.site_id,
      org_id: oauthGrants.org_id,
      scope: oauthGrants.scope,
      resource: oauthGrants.resource,
      revoked_at: oauthGrants.revoked_at,
      last_used_at: oauthGrants.last_used_at,
      user_status: users.status,
    })
    .from(oauthGrants)
    .leftJoin(users, eq(users.id, oauthGrants.user_id))
    .where(eq(oauthGrants.id, grantId))
    .get();
  return row ?? null;
}

/**
 * The code's single use: sets `used_at` only while it is NULL, the code unexpired and its grant live. Its
 * `changes` say whether this caller won; the refresh token's insert after it is conditioned on that.
 */
export function spendCodeStatement(db: D1Database, codeHash: string, now: string): D1PreparedStatement {
  return query(
    db,
    `UPDATE oauth_codes SET used_at = ?1
      WHERE code_hash = ?2 AND used_at IS NULL AND expires_at > ?1
        AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = oauth_codes.grant_id AND g.revoked_at IS NULL)`,
    now,
    codeHash,
  ).statement;
}

/** A refresh token of the grant, written only when the statement just before it changed a row. */
export function insertRefreshTokenStatement(
  db: D1Database,
  token: { hash: string; grantId: string; now: string; expiresAt: string },
): D1PreparedStatement {
  return query(
    db,
    `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at, rotated_at)
     SELECT ?, ?, ?, ?, NULL WHERE changes() > 0`,
    token.hash,
    token.grantId,
    token.now,
    token.expiresAt,
  ).statement;
}

export type RefreshRow = typeof oauthRefreshTokens.$inferSelect;

/** One refresh token by its hash, rotated or not; null when there is none. */
export async function refreshTokenByHash(db: D1Database, tokenHash: string): Promise<RefreshRow | null> {
  const row = await drizzle(db)
    .select()
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.token_hash, tokenHash))
    .get();
  return row ?? null;
}

/** The rotation's compare-and-set: marks the token rotated only while it is not (and its grant lives). */
export function rotateRefreshTokenStatement(
  db: D1Database,
  tokenHash: string,
  now: string,
): D1PreparedStatement {
  return query(
    db,
    `UPDATE oauth_refresh_tokens SET rotated_at = ?1
      WHERE token_hash = ?2 AND rotated_at IS NULL AND expires_at > ?1
        AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = oauth_refresh_tokens.grant_id AND g.revoked_at IS NULL)`,
    now,
    tokenHash,
  ).statement;
}

/** A live grant's `last_used_at`, set to `now` (a revoked grant keeps the time of its last use). */
export function touchGrantStatement(db: D1Database, grantId: string, now: string): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .update(oauthGrants)
      .set({ last_used_at: now })
      .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revoked_at))),
  );
}

/**
 * Sets `last_used_at` only when it is NULL or older than `dayAgo`: its `changes` say this use is the
 * first of the day, which the `oauth_grant.used` event after it is conditioned on (one per day, races too:
 * a batch is a transaction, so the second of two concurrent uses sees the first's time).
 */
export function firstUseOfDayStatement(
  db: D1Database,
  grantId: string,
  now: string,
  dayAgo: string,
): D1PreparedStatement {
  return query(
    db,
    `UPDATE oauth_grants SET last_used_at = ?1
      WHERE id = ?2 AND revoked_at IS NULL AND (last_used_at IS NULL OR last_used_at < ?3)`,
    now,
    grantId,
    dayAgo,
  ).statement;
}
