/**
 * Sessions (the refresh families live in their Durable Object). Queries go through drizzle's query builder,
 * except the inserts guarded in their `INSERT … SELECT` (the credential epoch, the rotation's claim) and
 * the reads that carry the SSO liveness rule (`ssoSessionEndedSql`, the edge context's statement included).
 */
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sessions, users } from "../../../schema/identity";
import type { Computed } from "../../lib/rows";
import { batch, fragment, prepared } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { batchWithEvent } from "../events/store";
import type { UserStatus } from "../signup/accounts-store";
import { ssoSessionEndedSql } from "../sso/store";

/** The columns the session queries read: all but `kind` and `rotated_to`. */
export type SessionRow = Omit<typeof sessions.$inferSelect, "kind" | "rotated_to">;

/** The columns the session queries read: all but `kind` and `rotated_to`. */
const SESSION_COLUMNS = {
  id: sessions.id,
  user_id: sessions.user_id,
  family_id: sessions.family_id,
  refresh_hash: sessions.refresh_hash,
  trusted_device: sessions.trusted_device,
  auth_method: sessions.auth_method,
  ip: sessions.ip,
  user_agent: sessions.user_agent,
  created_at: sessions.created_at,
  expires_at: sessions.expires_at,
  revoked_at: sessions.revoked_at,
  revoked_reason: sessions.revoked_reason,
};

export interface NewSession {
  id: string;
  userId: string;
  familyId: string;
  refreshHash: string;
  trusted: boolean;
  method: string;
  ip: string | null;
  userAgent: string | null;
  expiresAt: string;
}

/**
 * The INSERT of a new session. With `epoch` (the account's credential epoch when the sign-in's proof was
 * read or consumed) the row is written only while the epoch is unchanged: a password change or reset,
 * or an owner's undo, in between leaves nothing written (`meta.changes` 0).
 */
export function insertSessionStatement(db: D1Database, s: NewSession, epoch?: number) {
  const guard = epoch === undefined ? "" : " WHERE (SELECT credential_epoch FROM users WHERE id = ?2) = ?11";
  return db
    .prepare(
      `INSERT INTO sessions (id, user_id, family_id, kind, refresh_hash, trusted_device, auth_method, ip, user_agent, created_at, expires_at)
       SELECT ?1, ?2, ?3, 'staff', ?4, ?5, ?6, ?7, ?8, ?9, ?10${guard}`,
    )
    .bind(
      s.id,
      s.userId,
      s.familyId,
      s.refreshHash,
      s.trusted ? 1 : 0,
      s.method,
      s.ip,
      s.userAgent?.slice(0, 256) ?? null,
      nowIso(),
      s.expiresAt,
      ...(epoch === undefined ? [] : [epoch]),
    );
}

/**
 * A session is live when it exists for that user, is not revoked, not expired, and the account is active;
 * a session signed in through an organization's provider also needs that provider and that membership.
 */
export function liveSessionStatement(db: D1Database, userId: string, sessionId: string) {
  return db
    .prepare(
      `SELECT 1 AS ok FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND u.status = 'active'
       AND NOT ${ssoSessionEndedSql("s")}`,
    )
    .bind(sessionId, userId, nowIso());
}

export async function sessionIsLive(db: D1Database, userId: string, sessionId: string): Promise<boolean> {
  return (await liveSessionStatement(db, userId, sessionId).first<Computed<{ ok: number }>>()) !== null;
}

export async function listLiveSessions(db: D1Database, userId: string): Promise<{ results: SessionRow[] }> {
  const s = sessions;
  const results = await drizzle(db)
    .select(SESSION_COLUMNS)
    .from(s)
    .where(and(eq(s.user_id, userId), isNull(s.revoked_at), gt(s.expires_at, nowIso())))
    .orderBy(desc(s.created_at))
    .limit(100)
    .all();
  return { results };
}

export async function revokeSession(
  db: D1Database,
  userId: string,
  sessionId: string,
  reason: string,
  event?: D1PreparedStatement,
) {
  const revoke = drizzle(db)
    .update(sessions)
    .set({ revoked_at: nowIso(), revoked_reason: reason })
    .where(and(eq(sessions.id, sessionId), eq(sessions.user_id, userId), isNull(sessions.revoked_at)));
  const [res] = await batchWithEvent(db, [revoke], event);
  return (res?.changes ?? 0) > 0;
}

export function revokeAllSessionsStatement(
  db: D1Database,
  userId: string,
  reason: string,
  exceptSessionId?: string,
) {
  return prepared(
    db,
    drizzle(db)
      .update(sessions)
      .set({ revoked_at: nowIso(), revoked_reason: reason })
      .where(
        and(
          eq(sessions.user_id, userId),
          isNull(sessions.revoked_at),
          sql`${sessions.id} IS NOT ${exceptSessionId ?? null}`,
        ),
      ),
  );
}

export type SessionWithUser = SessionRow & { user_status: UserStatus | null; sso_ended: number };

/** The session a refresh token belongs to, with its account's status (null when the account is gone). */
export async function findSessionByRefreshHash(
  db: D1Database,
  refreshHash: string,
): Promise<SessionWithUser | null> {
  const row = await drizzle(db)
    .select({
      ...SESSION_COLUMNS,
      user_status: users.status,
      sso_ended: sql<number>`${fragment(ssoSessionEndedSql("sessions"))}`,
    })
    .from(sessions)
    .leftJoin(users, eq(users.id, sessions.user_id))
    .where(eq(sessions.refresh_hash, refreshHash))
    .get();
  return row ?? null;
}

/**
 * Replaces a session by its successor in the same family, keeping its expiry, method and trust. The
 * revocation is a compare-and-set and the insert only happens if it won, so a refresh token yields at
 * most one successor; false when it lost.
 */
export async function rotateSession(
  db: D1Database,
  from: SessionRow,
  next: { sessionId: string; refreshHash: string; ip: string | null; userAgent: string | null },
): Promise<boolean> {
  const [cas] = await batch(db, [
    drizzle(db)
      .update(sessions)
      .set({ revoked_at: nowIso(), revoked_reason: "rotated", rotated_to: next.sessionId })
      .where(and(eq(sessions.id, from.id), isNull(sessions.revoked_at))),
    db
      .prepare(
        `INSERT INTO sessions (id, user_id, family_id, kind, refresh_hash, trusted_device, auth_method, ip, user_agent, created_at, expires_at)
         SELECT ?, ?, ?, 'staff', ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ? AND rotated_to = ?)`,
      )
      .bind(
        next.sessionId,
        from.user_id,
        from.family_id,
        next.refreshHash,
        from.trusted_device,
        from.auth_method,
        next.ip,
        next.userAgent?.slice(0, 256) ?? null,
        nowIso(),
        from.expires_at,
        from.id,
        next.sessionId,
      ),
  ]);
  return cas.changes === 1;
}
