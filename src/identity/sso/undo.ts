/**
 * The one-click undo of a change to an organization's single sign-on (the credential rule, docs/decisions/grant-endings.md). Setting or
 * changing the configuration (owner, step-up) writes, in the change's own batch, an undo whose token is
 * mailed to every owner with the notice. The link puts the configuration back as it was before the change
 * (or removes single sign-on when there was none), and:
 *
 * - works once (a compare-and-set on `used_at` with a random claim, every restoring statement conditioned
 *   on that claim, all in one batch), for `SSO_UNDO_TTL_S`;
 * - is bound to that change: only while the configuration is still the one the change wrote (`config_id`
 *   and `updated_at`); after a later change only that change's own link undoes;
 * - answers the same 404 for an unknown, used, expired, superseded or another organization's token;
 * - ends every SSO session of the organization, the logins and registrations in flight, and the links
 *   made since the change (the provider being undone vouched for them); the owners are told.
 *
 * No session is needed: the token, mailed to an owner's primary address, is the proof (as `/auth/disown`).
 */
import type { orgSso, ssoDomains, ssoUndos } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import { isoIn, nowIso, randomToken, sha256Hex } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import type { SsoConfigRow } from "./store";

/** How long an undo link works (as the account's disown links). */
export const SSO_UNDO_TTL_S = 7 * 24 * 3600;

type DomainRow = Row<typeof ssoDomains, "domain" | "verified_at" | "created_at">;
interface Before {
  config: Row<typeof orgSso>;
  domains: DomainRow[];
}

/** The configuration and its domains as they are now, to put back; null when there is none. */
export async function snapshot(db: D1Database, before: SsoConfigRow | null): Promise<Before | null> {
  if (!before) return null;
  const { results } = await db
    .prepare("SELECT domain, verified_at, created_at FROM sso_domains WHERE org_id = ? ORDER BY domain")
    .bind(before.org_id)
    .all<DomainRow>();
  return { config: before, domains: results };
}

/** A new undo: its token (for the link) and the INSERT that rides in the change's batch. */
export async function newUndo(db: D1Database, orgId: string, configId: string, before: Before | null) {
  const token = randomToken(32);
  const hash = await sha256Hex(token);
  const insert = (updatedAt: string) => [
    db
      .prepare(
        `INSERT INTO sso_undos (token_hash, org_id, config_id, updated_at, before_json, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        hash,
        orgId,
        configId,
        updatedAt,
        before ? JSON.stringify(before) : null,
        nowIso(),
        isoIn(SSO_UNDO_TTL_S),
      ),
  ];
  return { token, insert };
}

export function undoLink(env: Env, orgId: string, token: string): string {
  const base = env.ISSUER.replace(/\/$/, "");
  return `${base}/auth/sso/undo?org=${encodeURIComponent(orgId)}&token=${encodeURIComponent(token)}`;
}

/** SQL condition: this request's claim of undo ?1 (token hash) with nonce ?2 is the one that won. */
const CLAIMED = "EXISTS (SELECT 1 FROM sso_undos u WHERE u.token_hash = ?1 AND u.used_by = ?2)";

/** What runs after the claim: the org's SSO sessions, logins, registrations and new links end. */
function endingStatements(db: D1Database, hash: string, nonce: string, orgId: string, since: string) {
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
function restoreStatements(db: D1Database, hash: string, nonce: string, before: Before) {
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

/**
 * Undoes the change of `orgId`'s SSO that mailed `token`: "restored" (the earlier configuration is back) or
 * "removed" (there was none before). Anything else is 404 `NOT_FOUND`, whatever the reason.
 */
export async function undoSsoChange(env: Env, orgId: string, token: string): Promise<"restored" | "removed"> {
  const db = env.DB;
  const hash = await sha256Hex(token);
  const now = nowIso();
  const row = await db
    .prepare(
      "SELECT * FROM sso_undos WHERE token_hash = ? AND org_id = ? AND used_at IS NULL AND expires_at > ?",
    )
    .bind(hash, orgId, now)
    .first<Row<typeof ssoUndos>>();
  if (!row) fail("NOT_FOUND", "No such undo link (it may have been used, expired or been superseded).");
  const before = row.before_json ? (JSON.parse(row.before_json) as Before) : null;
  const nonce = randomToken(16);
  const claim = db
    .prepare(
      `UPDATE sso_undos SET used_at = ?3, used_by = ?2 WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?3
         AND EXISTS (SELECT 1 FROM org_sso s WHERE s.org_id = sso_undos.org_id AND s.config_id = sso_undos.config_id
           AND s.updated_at = sso_undos.updated_at)`,
    )
    .bind(hash, nonce, now);
  const removal = db.prepare(`DELETE FROM org_sso WHERE org_id = ?3 AND ${CLAIMED}`).bind(hash, nonce, orgId);
  const [claimed] = await db.batch([
    claim,
    ...endingStatements(db, hash, nonce, orgId, row.updated_at),
    ...(before ? restoreStatements(db, hash, nonce, before) : [removal]),
  ]);
  if ((claimed?.meta.changes ?? 0) === 0) {
    fail("NOT_FOUND", "No such undo link (it may have been used, expired or been superseded).");
  }
  return before ? "restored" : "removed";
}
