/** The SSO tables (migration 0007): configurations, vouched domains, logins in flight, links, sessions. */
import type {
  emailAddresses,
  orgSso,
  orgs,
  ssoDomains,
  ssoIdentities,
  ssoLogins,
  ssoPending,
  users,
} from "../../../schema/identity";
import { newId } from "../../lib/ids";
import type { Computed, Row } from "../../lib/rows";
import { batch } from "../../lib/sql";
import { isoIn, nowIso } from "../core/crypto";
import { SSO_LOGIN_TTL_S, SSO_PENDING_TTL_S } from "./settings";

export type SsoConfigRow = typeof orgSso.$inferSelect;
export type SsoDomainRow = Pick<typeof ssoDomains.$inferSelect, "domain" | "verified_at">;
export type SsoPendingRow = typeof ssoPending.$inferSelect;

export function findConfig(db: D1Database, orgId: string) {
  return db.prepare("SELECT * FROM org_sso WHERE org_id = ?").bind(orgId).first<SsoConfigRow>();
}

export async function listDomains(db: D1Database, orgId: string): Promise<SsoDomainRow[]> {
  const { results } = await db
    .prepare("SELECT domain, verified_at FROM sso_domains WHERE org_id = ? ORDER BY domain")
    .bind(orgId)
    .all<SsoDomainRow>();
  return results;
}

/** The organization whose provider vouches for `domain` (proved), with its configuration. */
export function configForDomain(db: D1Database, domain: string) {
  return db
    .prepare(
      `SELECT s.* FROM sso_domains d JOIN org_sso s ON s.org_id = d.org_id
       WHERE d.domain = ? AND d.verified_at IS NOT NULL`,
    )
    .bind(domain)
    .first<SsoConfigRow>();
}

export function configForSlug(db: D1Database, slug: string) {
  return db
    .prepare("SELECT s.* FROM orgs o JOIN org_sso s ON s.org_id = o.id WHERE o.slug = ?")
    .bind(slug)
    .first<SsoConfigRow>();
}

export function domainVouched(db: D1Database, orgId: string, domain: string) {
  return db
    .prepare("SELECT 1 AS ok FROM sso_domains WHERE org_id = ? AND domain = ? AND verified_at IS NOT NULL")
    .bind(orgId, domain)
    .first<Computed<{ ok: number }>>();
}

/**
 * Writes a configuration and its domain set in one batch. A new `config_id` (another issuer or client)
 * ends the SSO sessions of the old one (their liveness checks it) and, for another issuer, drops the
 * links of the old provider's subjects.
 */
export async function saveConfig(
  db: D1Database,
  row: Omit<SsoConfigRow, "created_at" | "updated_at">,
  domains: string[],
  issuerChanged: boolean,
  /** Statements of the same batch that need the change's `updated_at` (its undo, docs/decisions/grant-endings.md). */
  alongside: (updatedAt: string) => D1PreparedStatement[] = () => [],
) {
  const now = nowIso();
  const list = JSON.stringify(domains);
  await batch(db, [
    db
      .prepare(
        `INSERT INTO org_sso (org_id, config_id, issuer, client_id, client_secret_sealed, enforced, allow_passwords, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
         ON CONFLICT (org_id) DO UPDATE SET config_id = ?2, issuer = ?3, client_id = ?4, client_secret_sealed = ?5,
           enforced = ?6, allow_passwords = ?7, updated_at = ?8`,
      )
      .bind(
        row.org_id,
        row.config_id,
        row.issuer,
        row.client_id,
        row.client_secret_sealed,
        row.enforced,
        row.allow_passwords,
        now,
      ),
    db
      .prepare("DELETE FROM sso_domains WHERE org_id = ? AND domain NOT IN (SELECT value FROM json_each(?))")
      .bind(row.org_id, list),
    db
      .prepare(
        `INSERT OR IGNORE INTO sso_domains (org_id, domain, verified_at, created_at)
         SELECT ?, value, NULL, ? FROM json_each(?)`,
      )
      .bind(row.org_id, now, list),
    db.prepare("DELETE FROM sso_identities WHERE org_id = ? AND ?").bind(row.org_id, issuerChanged ? 1 : 0),
    ...alongside(now),
  ]);
}

/** Marks a domain proved for `orgId`; false when another organization holds it proved (unique index). */
export async function markDomainProved(db: D1Database, orgId: string, domain: string): Promise<boolean> {
  const res = await db
    .prepare(
      `UPDATE sso_domains SET verified_at = ? WHERE org_id = ? AND domain = ? AND verified_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM sso_domains d WHERE d.domain = ?3 AND d.verified_at IS NOT NULL)`,
    )
    .bind(nowIso(), orgId, domain)
    .run();
  return res.meta.changes === 1;
}

export function domainHeldElsewhere(db: D1Database, orgId: string, domain: string) {
  return db
    .prepare("SELECT 1 AS ok FROM sso_domains WHERE domain = ? AND org_id <> ? AND verified_at IS NOT NULL")
    .bind(domain, orgId)
    .first<Computed<{ ok: number }>>();
}

/** Removes the configuration and everything hanging from it; its SSO sessions are revoked. */
export async function removeConfig(db: D1Database, orgId: string) {
  const now = nowIso();
  await batch(db, [
    db
      .prepare(
        `UPDATE sessions SET revoked_at = ?, revoked_reason = 'sso_removed'
         WHERE revoked_at IS NULL AND family_id IN (SELECT family_id FROM sso_sessions WHERE org_id = ?)`,
      )
      .bind(now, orgId),
    db.prepare("DELETE FROM sso_sessions WHERE org_id = ?").bind(orgId),
    db.prepare("DELETE FROM sso_identities WHERE org_id = ?").bind(orgId),
    db.prepare("DELETE FROM sso_pending WHERE org_id = ?").bind(orgId),
    db.prepare("DELETE FROM sso_logins WHERE org_id = ?").bind(orgId),
    db.prepare("DELETE FROM sso_domains WHERE org_id = ?").bind(orgId),
    db.prepare("DELETE FROM org_sso WHERE org_id = ?").bind(orgId),
  ]);
}

export function insertLogin(
  db: D1Database,
  row: {
    stateHash: string;
    orgId: string;
    configId: string;
    browserHash: string;
    verifier: string;
    nonce: string;
  },
) {
  return db
    .prepare(
      `INSERT INTO sso_logins (state_hash, org_id, config_id, browser_hash, code_verifier, nonce, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.stateHash,
      row.orgId,
      row.configId,
      row.browserHash,
      row.verifier,
      row.nonce,
      nowIso(),
      isoIn(SSO_LOGIN_TTL_S),
    )
    .run();
}

/** Consumes a login in flight (compare-and-set: single use, unexpired); null when it cannot be used. */
export function consumeLogin(db: D1Database, stateHash: string) {
  const now = nowIso();
  return db
    .prepare(
      `UPDATE sso_logins SET used_at = ?1 WHERE state_hash = ?2 AND used_at IS NULL AND expires_at > ?1
       RETURNING org_id, config_id, browser_hash, code_verifier, nonce`,
    )
    .bind(now, stateHash)
    .first<Row<typeof ssoLogins, "org_id" | "config_id" | "browser_hash" | "code_verifier" | "nonce">>();
}

export function linkedUser(db: D1Database, orgId: string, subject: string) {
  return db
    .prepare(
      `SELECT i.user_id, u.status, EXISTS (SELECT 1 FROM org_memberships m WHERE m.org_id = i.org_id AND m.user_id = i.user_id) AS member
       FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE i.org_id = ? AND i.subject = ?`,
    )
    .bind(orgId, subject)
    .first<
      Row<typeof ssoIdentities, "user_id"> & Row<typeof users, "status"> & Computed<{ member: number }>
    >();
}

export function insertPending(
  db: D1Database,
  row: Omit<SsoPendingRow, "created_at" | "expires_at" | "used_at">,
) {
  return db
    .prepare(
      `INSERT INTO sso_pending (token_hash, kind, org_id, config_id, subject, email, name, user_id, amr, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.token_hash,
      row.kind,
      row.org_id,
      row.config_id,
      row.subject,
      row.email,
      row.name,
      row.user_id,
      row.amr,
      nowIso(),
      isoIn(SSO_PENDING_TTL_S),
    )
    .run();
}

/** Consumes a pending registration or link (compare-and-set); null when unknown, used, expired or stale. */
export function consumePending(db: D1Database, tokenHash: string, kind: SsoPendingRow["kind"]) {
  const now = nowIso();
  return db
    .prepare(
      `UPDATE sso_pending SET used_at = ?1 WHERE token_hash = ?2 AND kind = ?3 AND used_at IS NULL AND expires_at > ?1
       AND EXISTS (SELECT 1 FROM org_sso s WHERE s.org_id = sso_pending.org_id AND s.config_id = sso_pending.config_id)
       RETURNING *`,
    )
    .bind(now, tokenHash, kind)
    .first<SsoPendingRow>();
}

export function findPending(db: D1Database, tokenHash: string, kind: SsoPendingRow["kind"]) {
  return db
    .prepare(
      "SELECT * FROM sso_pending WHERE token_hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?",
    )
    .bind(tokenHash, kind, nowIso())
    .first<SsoPendingRow>();
}

/** Records a new session as signed in through `orgId`'s provider (same batch as the session insert). */
export function ssoSessionStatement(
  db: D1Database,
  sessionId: string,
  at: { orgId: string; configId: string; userId: string; amr: string | null },
) {
  return db
    .prepare(
      `INSERT INTO sso_sessions (family_id, org_id, user_id, config_id, amr, created_at)
       SELECT family_id, ?, ?, ?, ?, ? FROM sessions WHERE id = ?`,
    )
    .bind(at.orgId, at.userId, at.configId, at.amr, nowIso(), sessionId);
}

export function linkStatement(db: D1Database, orgId: string, subject: string, userId: string) {
  return db
    .prepare(
      "INSERT OR IGNORE INTO sso_identities (org_id, subject, user_id, created_at) VALUES (?, ?, ?, ?)",
    )
    .bind(orgId, subject, userId, nowIso());
}

/** A new active account whose primary address the provider proved (an SSO registration's batch). */
export function newAccountStatements(
  db: D1Database,
  account: {
    userId: string;
    passwordHash: string | null;
    displayName: string | null;
    address: string;
    now: string;
  },
): D1PreparedStatement[] {
  const { userId, now } = account;
  return [
    db
      .prepare(
        "INSERT INTO users (id, status, password_hash, display_name, created_at, updated_at) VALUES (?, 'active', ?, ?, ?, ?)",
      )
      .bind(userId, account.passwordHash, account.displayName, now, now),
    db
      .prepare(
        "INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at) VALUES (?, ?, ?, ?, 1, ?)",
      )
      .bind(newId(), userId, account.address, now, now),
  ];
}

export function joinStatement(db: D1Database, orgId: string, userId: string, role: string) {
  return db
    .prepare("INSERT OR IGNORE INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)")
    .bind(orgId, userId, role, nowIso());
}

/**
 * SQL (over a `sessions` row aliased `alias`) true when the session was signed in through a provider
 * that is no longer the organization's (removed or replaced) or by a person no longer its member: such
 * a session is dead (login/sessions-store.ts liveness, refresh).
 */
export function ssoSessionEndedSql(alias: string): string {
  return `EXISTS (SELECT 1 FROM sso_sessions x WHERE x.family_id = ${alias}.family_id AND (
    NOT EXISTS (SELECT 1 FROM org_memberships m WHERE m.org_id = x.org_id AND m.user_id = x.user_id)
    OR NOT EXISTS (SELECT 1 FROM org_sso o WHERE o.org_id = x.org_id AND o.config_id = x.config_id)))`;
}

/** The primary addresses of the owners of organization `orgId`, with its name (sso/notices.ts). */
export async function ownerAddresses(db: D1Database, orgId: string) {
  const { results } = await db
    .prepare(
      `SELECT e.address, o.name FROM org_memberships m
       JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND r.is_system = 1 AND (r.org_id IS NULL OR r.org_id = m.org_id)
       JOIN email_addresses e ON e.user_id = m.user_id AND e.is_primary = 1
       JOIN orgs o ON o.id = m.org_id
       WHERE m.org_id = ?`,
    )
    .bind(orgId)
    .all<Row<typeof emailAddresses, "address"> & Row<typeof orgs, "name">>();
  return results;
}
