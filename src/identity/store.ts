/** D1 queries of the identity service (one module: every SQL statement of the service lives here or in a DO). */

import type { OperatorCapability } from "../lib/edge";
import { newId } from "../lib/ids";
import type { EdgeContext } from "../lib/rpc";
import { nowIso } from "./crypto";

export type UserStatus = "pending_verification" | "active" | "locked" | "disabled";

export interface LoginCandidate {
  user_id: string;
  status: UserStatus;
  password_hash: string | null;
  address: string;
  verified: number;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The account an address logs into: the account holding it verified, else the newest account with it
 * pending (that one can only learn it is unverified, and only after its password matched).
 */
export function findLoginCandidate(db: D1Database, address: string) {
  return db
    .prepare(
      `SELECT u.id AS user_id, u.status, u.password_hash, e.address, (e.verified_at IS NOT NULL) AS verified
       FROM email_addresses e JOIN users u ON u.id = e.user_id
       WHERE e.address = ?
       ORDER BY (e.verified_at IS NOT NULL) DESC, e.created_at DESC LIMIT 1`,
    )
    .bind(address)
    .first<LoginCandidate>();
}

/** Account holding the address verified (magic link, reset, signup notice). */
export function findVerifiedOwner(db: D1Database, address: string) {
  return db
    .prepare(
      `SELECT u.id AS user_id, u.status, u.password_hash, e.address, 1 AS verified
       FROM email_addresses e JOIN users u ON u.id = e.user_id
       WHERE e.address = ? AND e.verified_at IS NOT NULL`,
    )
    .bind(address)
    .first<LoginCandidate>();
}

export interface UserRow {
  id: string;
  status: UserStatus;
  password_hash: string | null;
  created_at: string;
}

export function getUser(db: D1Database, userId: string) {
  return db
    .prepare("SELECT id, status, password_hash, created_at FROM users WHERE id = ?")
    .bind(userId)
    .first<UserRow>();
}

export async function primaryEmail(db: D1Database, userId: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT address FROM email_addresses WHERE user_id = ? AND is_primary = 1")
    .bind(userId)
    .first<{ address: string }>();
  return row?.address ?? null;
}

/** Statements creating an account in pending_verification with its (pending, primary) address. */
export function pendingAccountStatements(db: D1Database, address: string, passwordHash: string) {
  const userId = newId();
  const now = nowIso();
  const statements = [
    db
      .prepare(
        "INSERT INTO users (id, status, password_hash, created_at, updated_at) VALUES (?, 'pending_verification', ?, ?, ?)",
      )
      .bind(userId, passwordHash, now, now),
    db
      .prepare(
        "INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at) VALUES (?, ?, ?, NULL, 1, ?)",
      )
      .bind(newId(), userId, address, now),
  ];
  return { userId, statements };
}

/**
 * Proves the signup address: the address becomes verified and the account active (run in one batch with
 * the first session). The unique index on verified addresses makes a second account proving the same
 * address fail the batch. Other accounts' pending codes for the address die with it.
 */
export function activationStatements(db: D1Database, userId: string, address: string): D1PreparedStatement[] {
  const now = nowIso();
  return [
    db
      .prepare(
        "UPDATE email_addresses SET verified_at = ? WHERE user_id = ? AND address = ? AND verified_at IS NULL",
      )
      .bind(now, userId, address),
    db
      .prepare(
        "UPDATE users SET status = 'active', updated_at = ? WHERE id = ? AND status = 'pending_verification'",
      )
      .bind(now, userId),
    db
      .prepare(
        "UPDATE otp_codes SET used_at = ? WHERE purpose = 'email_verify' AND target = ? AND used_at IS NULL",
      )
      .bind(now, address),
  ];
}

/** Only upgrades when the stored hash is still the one that was verified (a concurrent change wins). */
export async function upgradePasswordHash(db: D1Database, userId: string, oldHash: string, newHash: string) {
  await db
    .prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?")
    .bind(newHash, nowIso(), userId, oldHash)
    .run();
}

// Sessions

export interface SessionRow {
  id: string;
  user_id: string;
  family_id: string;
  refresh_hash: string;
  trusted_device: number;
  auth_method: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

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

export function insertSessionStatement(db: D1Database, s: NewSession) {
  return db
    .prepare(
      `INSERT INTO sessions (id, user_id, family_id, kind, refresh_hash, trusted_device, auth_method, ip, user_agent, created_at, expires_at)
       VALUES (?, ?, ?, 'staff', ?, ?, ?, ?, ?, ?, ?)`,
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
    );
}

/** A session is live when it exists for that user, is not revoked, not expired, and the account is active. */
export async function sessionIsLive(db: D1Database, userId: string, sessionId: string): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS ok FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND u.status = 'active'`,
    )
    .bind(sessionId, userId, nowIso())
    .first<{ ok: number }>();
  return row !== null;
}

export function listLiveSessions(db: D1Database, userId: string) {
  return db
    .prepare(
      `SELECT id, user_id, family_id, refresh_hash, trusted_device, auth_method, ip, user_agent, created_at, expires_at, revoked_at, revoked_reason
       FROM sessions WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC LIMIT 100`,
    )
    .bind(userId, nowIso())
    .all<SessionRow>();
}

export async function revokeSession(db: D1Database, userId: string, sessionId: string, reason: string) {
  const res = await db
    .prepare(
      "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
    )
    .bind(nowIso(), reason, sessionId, userId)
    .run();
  return res.meta.changes > 0;
}

export function revokeAllSessionsStatement(
  db: D1Database,
  userId: string,
  reason: string,
  exceptSessionId?: string,
) {
  return db
    .prepare(
      "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL AND id IS NOT ?",
    )
    .bind(nowIso(), reason, userId, exceptSessionId ?? null);
}

// Organizations and memberships

export async function edgeContextFor(
  db: D1Database,
  userId: string,
  sessionId: string,
): Promise<EdgeContext | null> {
  const [user, live, orgs, sites, operator] = await db.batch([
    db.prepare("SELECT id FROM users WHERE id = ?").bind(userId),
    db
      .prepare(
        `SELECT 1 AS ok FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND u.status = 'active'`,
      )
      .bind(sessionId, userId, nowIso()),
    db
      .prepare(
        `SELECT m.org_id, m.role, COALESCE(r.permissions, '[]') AS permissions
         FROM org_memberships m
         LEFT JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
         WHERE m.user_id = ? ORDER BY m.created_at`,
      )
      .bind(userId),
    db
      .prepare("SELECT site_id, role FROM site_memberships WHERE user_id = ? ORDER BY created_at")
      .bind(userId),
    db.prepare("SELECT capability FROM platform_operators WHERE user_id = ?").bind(userId),
  ]);
  if (!user || user.results.length === 0) return null;
  const orgRows = (orgs?.results ?? []) as { org_id: string; role: string; permissions: string }[];
  return {
    user_id: userId,
    session_active: (live?.results.length ?? 0) > 0,
    session_kind: "staff",
    org_memberships: orgRows.map((r) => ({
      org_id: r.org_id,
      role: r.role,
      permissions: JSON.parse(r.permissions) as string[],
    })),
    site_memberships: ((sites?.results ?? []) as { site_id: string; role: string }[]).map((r) => ({
      site_id: r.site_id,
      role: r.role,
    })),
    operator: (operator?.results[0] as { capability?: OperatorCapability } | undefined)?.capability ?? null,
  };
}

export interface OrgRow {
  id: string;
  name: string;
  slug: string;
  role: string;
  created_at: string;
}

export async function createOrg(db: D1Database, userId: string, name: string, slug: string) {
  const id = newId();
  const now = nowIso();
  try {
    await db.batch([
      db
        .prepare("INSERT INTO orgs (id, name, slug, owner_user_id, created_at) VALUES (?, ?, ?, ?, ?)")
        .bind(id, name, slug, userId, now),
      db
        .prepare(
          "INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'org_owner', ?)",
        )
        .bind(id, userId, now),
    ]);
  } catch (err) {
    if (String((err as Error).message).includes("UNIQUE")) return null;
    throw err;
  }
  return { id, name, slug, role: "org_owner", created_at: now };
}

export function listMyOrgs(db: D1Database, userId: string) {
  return db
    .prepare(
      `SELECT o.id, o.name, o.slug, m.role, o.created_at FROM org_memberships m JOIN orgs o ON o.id = m.org_id
       WHERE m.user_id = ? ORDER BY o.created_at, o.id LIMIT 500`,
    )
    .bind(userId)
    .all<OrgRow>();
}

/**
 * Hourly cleanup (cron): spent or expired codes after a day, dev-outbox messages after a week, dead
 * sessions after 30 days, pending signups nobody confirmed within 7 days; pending transfers past their
 * expiry become `expired`.
 */
export async function cleanupExpired(db: D1Database, now = Date.now()) {
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
  const day = 24 * 3600 * 1000;
  await db.batch([
    db.prepare("DELETE FROM otp_codes WHERE expires_at < ? OR used_at < ?").bind(iso(day), iso(day)),
    db.prepare("DELETE FROM outbox_messages WHERE created_at < ?").bind(iso(7 * day)),
    db
      .prepare("DELETE FROM sessions WHERE expires_at < ? OR revoked_at < ?")
      .bind(iso(30 * day), iso(30 * day)),
    db
      .prepare("DELETE FROM users WHERE status = 'pending_verification' AND created_at < ?")
      .bind(iso(7 * day)),
    db
      .prepare("UPDATE transfers SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?")
      .bind(iso(0)),
  ]);
}
