/** The SSO undo links' rows (sso/undo.ts): the snapshot to put back, the claim and what it restores. */
import type { orgSso, ssoDomains, ssoUndos } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import { nowIso } from "../core/crypto";

type DomainRow = Row<typeof ssoDomains, "domain" | "verified_at" | "created_at">;
export interface Before {
  config: Row<typeof orgSso>;
  domains: DomainRow[];
}

/** The domains of organization `orgId`, to put back with its configuration. */
export async function domainsOf(db: D1Database, orgId: string): Promise<DomainRow[]> {
  const { results } = await db
    .prepare("SELECT domain, verified_at, created_at FROM sso_domains WHERE org_id = ? ORDER BY domain")
    .bind(orgId)
    .all<DomainRow>();
  return results;
}

/** The undo's INSERT, for the change's own batch. */
export function insertUndoStatement(
  db: D1Database,
  undo: {
    hash: string;
    orgId: string;
    configId: string;
    updatedAt: string;
    before: Before | null;
    expiresAt: string;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO sso_undos (token_hash, org_id, config_id, updated_at, before_json, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      undo.hash,
      undo.orgId,
      undo.configId,
      undo.updatedAt,
      undo.before ? JSON.stringify(undo.before) : null,
      nowIso(),
      undo.expiresAt,
    );
}

/** The unused, unexpired undo of `orgId` whose token hashes to `hash`, or null. */
export function findLiveUndo(db: D1Database, hash: string, orgId: string, now: string) {
  return db
    .prepare(
      "SELECT * FROM sso_undos WHERE token_hash = ? AND org_id = ? AND used_at IS NULL AND expires_at > ?",
    )
    .bind(hash, orgId, now)
    .first<Row<typeof ssoUndos>>();
}

/** SQL condition: this request's claim of undo ?1 (token hash) with nonce ?2 is the one that won. */
const CLAIMED = "EXISTS (SELECT 1 FROM sso_undos u WHERE u.token_hash = ?1 AND u.used_by = ?2)";

/**
 * The claim: a compare-and-set on `used_at` with this request's random `nonce`, only while the
 * configuration is still the one the change wrote (`config_id` and `updated_at`).
 */
export function claimUndoStatement(
  db: D1Database,
  hash: string,
  nonce: string,
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE sso_undos SET used_at = ?3, used_by = ?2 WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?3
         AND EXISTS (SELECT 1 FROM org_sso s WHERE s.org_id = sso_undos.org_id AND s.config_id = sso_undos.config_id
           AND s.updated_at = sso_undos.updated_at)`,
    )
    .bind(hash, nonce, now);
}

/** After a won claim, when there was no configuration before the change: single sign-on goes. */
export function removalStatement(
  db: D1Database,
  hash: string,
  nonce: string,
  orgId: string,
): D1PreparedStatement {
  return db.prepare(`DELETE FROM org_sso WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId);
}

/** What runs after the claim: the org's SSO sessions, logins, registrations and new links end. */
export function endingStatements(db: D1Database, hash: string, nonce: string, orgId: string, since: string) {
  return [
    db
      .prepare(
        `UPDATE sessions SET revoked_at = ?4, revoked_reason = 'sso_undone'
         WHERE revoked_at IS NULL AND family_id IN (SELECT family_id FROM sso_sessions WHERE org_id = ?3) AND ${CLAIMED}`,
      )
      .bind(hash, nonce, orgId, nowIso()),
    db.prepare(`DELETE FROM sso_sessions WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId),
    db.prepare(`DELETE FROM sso_pending WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId),
    db.prepare(`DELETE FROM sso_logins WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId),
    db
      .prepare(`DELETE FROM sso_identities WHERE org_id = ?3 AND created_at >= ?4 AND ${CLAIMED}`)
      .bind(hash, nonce, orgId, since),
    db.prepare(`DELETE FROM sso_domains WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId),
  ];
}

/** The configuration and domains put back as they were (a domain another organization proved since stays unproved). */
export function restoreStatements(db: D1Database, hash: string, nonce: string, before: Before) {
  const c = before.config;
  return [
    db
      .prepare(
        `INSERT INTO org_sso (org_id, config_id, issuer, client_id, client_secret_sealed, enforced, allow_passwords, created_at, updated_at)
         SELECT ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 WHERE ${CLAIMED}
         ON CONFLICT (org_id) DO UPDATE SET config_id = ?4, issuer = ?5, client_id = ?6, client_secret_sealed = ?7,
           enforced = ?8, allow_passwords = ?9, created_at = ?10, updated_at = ?11`,
      )
      .bind(
        hash,
        nonce,
        c.org_id,
        c.config_id,
        c.issuer,
        c.client_id,
        c.client_secret_sealed,
        c.enforced,
        c.allow_passwords,
        c.created_at,
        nowIso(),
      ),
    db
      .prepare(
        `INSERT INTO sso_domains (org_id, domain, verified_at, created_at)
         SELECT ?3, json_extract(j.value, '$.domain'),
           CASE WHEN EXISTS (SELECT 1 FROM sso_domains d WHERE d.domain = json_extract(j.value, '$.domain')
             AND d.verified_at IS NOT NULL) THEN NULL ELSE json_extract(j.value, '$.verified_at') END,
           json_extract(j.value, '$.created_at')
         FROM json_each(?4) j WHERE ${CLAIMED}`,
      )
      .bind(hash, nonce, c.org_id, JSON.stringify(before.domains)),
  ];
}
