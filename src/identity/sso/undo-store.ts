/**
 * The SSO undo links' rows (sso/undo.ts): the snapshot to put back, the claim and what it restores.
 * Queries go through drizzle's query builder, except the restore's two `INSERT … SELECT` statements guarded
 * by the claim (the configuration's upsert, the domains read from the snapshot's JSON).
 */
import { and, eq, exists, gt, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { orgSso, ssoDomains, ssoUndos } from "../../../schema/identity";
import type { Row } from "../../lib/rows";
import { prepared } from "../../lib/sql";
import { nowIso } from "../core/crypto";
import { ssoEndingWrites } from "./store";

type DomainRow = Row<typeof ssoDomains, "domain" | "verified_at" | "created_at">;
export interface Before {
  config: Row<typeof orgSso>;
  domains: DomainRow[];
}

/** The domains of organization `orgId`, to put back with its configuration. */
export async function domainsOf(db: D1Database, orgId: string): Promise<DomainRow[]> {
  return drizzle(db)
    .select({
      domain: ssoDomains.domain,
      verified_at: ssoDomains.verified_at,
      created_at: ssoDomains.created_at,
    })
    .from(ssoDomains)
    .where(eq(ssoDomains.org_id, orgId))
    .orderBy(ssoDomains.domain)
    .all();
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
  return prepared(
    db,
    drizzle(db)
      .insert(ssoUndos)
      .values({
        token_hash: undo.hash,
        org_id: undo.orgId,
        config_id: undo.configId,
        updated_at: undo.updatedAt,
        before_json: undo.before ? JSON.stringify(undo.before) : null,
        created_at: nowIso(),
        expires_at: undo.expiresAt,
      }),
  );
}

/** The unused, unexpired undo of `orgId` whose token hashes to `hash`, or null. */
export async function findLiveUndo(
  db: D1Database,
  hash: string,
  orgId: string,
  now: string,
): Promise<Row<typeof ssoUndos> | null> {
  const row = await drizzle(db)
    .select()
    .from(ssoUndos)
    .where(
      and(
        eq(ssoUndos.token_hash, hash),
        eq(ssoUndos.org_id, orgId),
        isNull(ssoUndos.used_at),
        gt(ssoUndos.expires_at, now),
      ),
    )
    .get();
  return row ?? null;
}

/** SQL condition: this request's claim of undo ?1 (token hash) with nonce ?2 is the one that won. */
const CLAIMED = "EXISTS (SELECT 1 FROM sso_undos u WHERE u.token_hash = ?1 AND u.used_by = ?2)";

/**
 * The same condition for the query builder: this request's claim of undo `hash` with `nonce` won (also the
 * guard of the MCP agents' grants an undo that restores enforcement ends: oauth/endings.ts).
 */
export function claimed(db: D1Database, hash: string, nonce: string) {
  const u = alias(ssoUndos, "u");
  return exists(
    drizzle(db)
      .select({ one: sql`1` })
      .from(u)
      .where(and(eq(u.token_hash, hash), eq(u.used_by, nonce))),
  );
}

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
  const d = drizzle(db);
  return prepared(
    db,
    d
      .update(ssoUndos)
      .set({ used_at: now, used_by: nonce })
      .where(
        and(
          eq(ssoUndos.token_hash, hash),
          isNull(ssoUndos.used_at),
          gt(ssoUndos.expires_at, now),
          exists(
            d
              .select({ one: sql`1` })
              .from(orgSso)
              .where(
                and(
                  eq(orgSso.org_id, ssoUndos.org_id),
                  eq(orgSso.config_id, ssoUndos.config_id),
                  eq(orgSso.updated_at, ssoUndos.updated_at),
                ),
              ),
          ),
        ),
      ),
  );
}

/** After a won claim, when there was no configuration before the change: single sign-on goes. */
export function removalStatement(
  db: D1Database,
  hash: string,
  nonce: string,
  orgId: string,
): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .delete(orgSso)
      .where(and(eq(orgSso.org_id, orgId), claimed(db, hash, nonce))),
  );
}

/** What runs after the claim: the org's SSO sessions, logins, registrations and new links end. */
export function endingStatements(db: D1Database, hash: string, nonce: string, orgId: string, since: string) {
  const guard = () => claimed(db, hash, nonce);
  return ssoEndingWrites(db, orgId, "sso_undone", { guard, linkedSince: since }).map((write) =>
    prepared(db, write),
  );
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
