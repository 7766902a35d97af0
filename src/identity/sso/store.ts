/**
 * The SSO tables (migration 0007): configurations, vouched domains, logins in flight, links, sessions.
 * Queries go through drizzle's query builder, except the domain set's `INSERT … SELECT` from the JSON list
 * and the SSO session's `INSERT … SELECT` from its session row.
 */
import {
  and,
  eq,
  exists,
  getTableColumns,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  ne,
  not,
  notExists,
  type SQL,
  sql,
} from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import {
  emailAddresses,
  orgMemberships,
  orgSso,
  orgs,
  sessions,
  ssoDomains,
  ssoIdentities,
  ssoLogins,
  ssoPending,
  ssoSessions,
  users,
} from "../../../schema/identity";
import { batch, inJsonEach, prepared } from "../../lib/sql";
import { isoIn, nowIso } from "../core/crypto";
import { ownerRole } from "../members/store";
import { accountStatements } from "../signup/accounts-store";
import { SSO_LOGIN_TTL_S, SSO_PENDING_TTL_S } from "./settings";

export type SsoConfigRow = typeof orgSso.$inferSelect;
export type SsoDomainRow = Pick<typeof ssoDomains.$inferSelect, "domain" | "verified_at">;
export type SsoPendingRow = typeof ssoPending.$inferSelect;

const ONE = { ok: sql<number>`1` };

export async function findConfig(db: D1Database, orgId: string): Promise<SsoConfigRow | null> {
  return (await drizzle(db).select().from(orgSso).where(eq(orgSso.org_id, orgId)).get()) ?? null;
}

export async function listDomains(db: D1Database, orgId: string): Promise<SsoDomainRow[]> {
  return drizzle(db)
    .select({ domain: ssoDomains.domain, verified_at: ssoDomains.verified_at })
    .from(ssoDomains)
    .where(eq(ssoDomains.org_id, orgId))
    .orderBy(ssoDomains.domain)
    .all();
}

/** The organization whose provider vouches for `domain` (proved), with its configuration. */
export async function configForDomain(db: D1Database, domain: string): Promise<SsoConfigRow | null> {
  const row = await drizzle(db)
    .select(getTableColumns(orgSso))
    .from(ssoDomains)
    .innerJoin(orgSso, eq(orgSso.org_id, ssoDomains.org_id))
    .where(and(eq(ssoDomains.domain, domain), isNotNull(ssoDomains.verified_at)))
    .get();
  return row ?? null;
}

export async function configForSlug(db: D1Database, slug: string): Promise<SsoConfigRow | null> {
  const row = await drizzle(db)
    .select(getTableColumns(orgSso))
    .from(orgs)
    .innerJoin(orgSso, eq(orgSso.org_id, orgs.id))
    .where(eq(orgs.slug, slug))
    .get();
  return row ?? null;
}

export async function domainVouched(db: D1Database, orgId: string, domain: string) {
  const row = await drizzle(db)
    .select(ONE)
    .from(ssoDomains)
    .where(
      and(eq(ssoDomains.org_id, orgId), eq(ssoDomains.domain, domain), isNotNull(ssoDomains.verified_at)),
    )
    .get();
  return row ?? null;
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
  const d = drizzle(db);
  const { org_id, ...fields } = row;
  await batch(db, [
    d
      .insert(orgSso)
      .values({ ...row, created_at: now, updated_at: now })
      .onConflictDoUpdate({ target: orgSso.org_id, set: { ...fields, updated_at: now } }),
    d
      .delete(ssoDomains)
      .where(and(eq(ssoDomains.org_id, org_id), not(inJsonEach(ssoDomains.domain, domains)))),
    db
      .prepare(
        `INSERT OR IGNORE INTO sso_domains (org_id, domain, verified_at, created_at)
         SELECT ?, value, NULL, ? FROM json_each(?)`,
      )
      .bind(row.org_id, now, list),
    d.delete(ssoIdentities).where(and(eq(ssoIdentities.org_id, org_id), sql`${issuerChanged ? 1 : 0}`)),
    ...alongside(now),
  ]);
}

/** Marks a domain proved for `orgId`; false when another organization holds it proved (unique index). */
export async function markDomainProved(db: D1Database, orgId: string, domain: string): Promise<boolean> {
  const d = drizzle(db);
  const proved = alias(ssoDomains, "d");
  const res = await d
    .update(ssoDomains)
    .set({ verified_at: nowIso() })
    .where(
      and(
        eq(ssoDomains.org_id, orgId),
        eq(ssoDomains.domain, domain),
        isNull(ssoDomains.verified_at),
        notExists(
          d
            .select(ONE)
            .from(proved)
            .where(and(eq(proved.domain, domain), isNotNull(proved.verified_at))),
        ),
      ),
    )
    .run();
  return res.meta.changes === 1;
}

export async function domainHeldElsewhere(db: D1Database, orgId: string, domain: string) {
  const row = await drizzle(db)
    .select(ONE)
    .from(ssoDomains)
    .where(
      and(eq(ssoDomains.domain, domain), ne(ssoDomains.org_id, orgId), isNotNull(ssoDomains.verified_at)),
    )
    .get();
  return row ?? null;
}

/**
 * The writes that end organization `orgId`'s single sign-on, in order (the revocation reads `sso_sessions`
 * before they go): its SSO sessions revoked with `reason`, then its SSO sessions, pending registrations,
 * logins, links to the provider (only those made since `linkedSince` when given) and domains deleted. `guard`,
 * when given, is a condition added to each write (an undo's won claim: sso/undo-store.ts).
 */
export function ssoEndingWrites(
  db: D1Database,
  orgId: string,
  reason: "sso_removed" | "sso_undone",
  { guard, linkedSince }: { guard?: () => SQL; linkedSince?: string } = {},
) {
  const d = drizzle(db);
  const where = (...conditions: (SQL | undefined)[]) => and(...conditions, guard?.());
  return [
    d
      .update(sessions)
      .set({ revoked_at: nowIso(), revoked_reason: reason })
      .where(
        where(
          isNull(sessions.revoked_at),
          inArray(
            sessions.family_id,
            d
              .select({ family_id: ssoSessions.family_id })
              .from(ssoSessions)
              .where(eq(ssoSessions.org_id, orgId)),
          ),
        ),
      ),
    d.delete(ssoSessions).where(where(eq(ssoSessions.org_id, orgId))),
    d.delete(ssoPending).where(where(eq(ssoPending.org_id, orgId))),
    d.delete(ssoLogins).where(where(eq(ssoLogins.org_id, orgId))),
    d
      .delete(ssoIdentities)
      .where(
        where(
          eq(ssoIdentities.org_id, orgId),
          linkedSince === undefined ? undefined : gte(ssoIdentities.created_at, linkedSince),
        ),
      ),
    d.delete(ssoDomains).where(where(eq(ssoDomains.org_id, orgId))),
  ] as const;
}

/** Removes the configuration and everything hanging from it; its SSO sessions are revoked. */
export async function removeConfig(db: D1Database, orgId: string) {
  const d = drizzle(db);
  await d.batch([
    ...ssoEndingWrites(db, orgId, "sso_removed"),
    d.delete(orgSso).where(eq(orgSso.org_id, orgId)),
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
  return drizzle(db)
    .insert(ssoLogins)
    .values({
      state_hash: row.stateHash,
      org_id: row.orgId,
      config_id: row.configId,
      browser_hash: row.browserHash,
      code_verifier: row.verifier,
      nonce: row.nonce,
      created_at: nowIso(),
      expires_at: isoIn(SSO_LOGIN_TTL_S),
    })
    .run();
}

/** Consumes a login in flight (compare-and-set: single use, unexpired); null when it cannot be used. */
export async function consumeLogin(db: D1Database, stateHash: string) {
  const now = nowIso();
  const row = await drizzle(db)
    .update(ssoLogins)
    .set({ used_at: now })
    .where(and(eq(ssoLogins.state_hash, stateHash), isNull(ssoLogins.used_at), gt(ssoLogins.expires_at, now)))
    .returning({
      org_id: ssoLogins.org_id,
      config_id: ssoLogins.config_id,
      browser_hash: ssoLogins.browser_hash,
      code_verifier: ssoLogins.code_verifier,
      nonce: ssoLogins.nonce,
    })
    .get();
  return row ?? null;
}

export async function linkedUser(db: D1Database, orgId: string, subject: string) {
  const d = drizzle(db);
  const row = await d
    .select({
      user_id: ssoIdentities.user_id,
      status: users.status,
      member: sql<number>`${exists(
        d
          .select(ONE)
          .from(orgMemberships)
          .where(
            and(
              eq(orgMemberships.org_id, ssoIdentities.org_id),
              eq(orgMemberships.user_id, ssoIdentities.user_id),
            ),
          ),
      )}`,
    })
    .from(ssoIdentities)
    .innerJoin(users, eq(users.id, ssoIdentities.user_id))
    .where(and(eq(ssoIdentities.org_id, orgId), eq(ssoIdentities.subject, subject)))
    .get();
  return row ?? null;
}

export function insertPending(
  db: D1Database,
  row: Omit<SsoPendingRow, "created_at" | "expires_at" | "used_at">,
) {
  return drizzle(db)
    .insert(ssoPending)
    .values({
      token_hash: row.token_hash,
      kind: row.kind,
      org_id: row.org_id,
      config_id: row.config_id,
      subject: row.subject,
      email: row.email,
      name: row.name,
      user_id: row.user_id,
      amr: row.amr,
      created_at: nowIso(),
      expires_at: isoIn(SSO_PENDING_TTL_S),
    })
    .run();
}

/** Consumes a pending registration or link (compare-and-set); null when unknown, used, expired or stale. */
export async function consumePending(db: D1Database, tokenHash: string, kind: SsoPendingRow["kind"]) {
  const now = nowIso();
  const d = drizzle(db);
  const row = await d
    .update(ssoPending)
    .set({ used_at: now })
    .where(
      and(
        eq(ssoPending.token_hash, tokenHash),
        eq(ssoPending.kind, kind),
        isNull(ssoPending.used_at),
        gt(ssoPending.expires_at, now),
        exists(
          d
            .select(ONE)
            .from(orgSso)
            .where(and(eq(orgSso.org_id, ssoPending.org_id), eq(orgSso.config_id, ssoPending.config_id))),
        ),
      ),
    )
    .returning()
    .get();
  return row ?? null;
}

export async function findPending(db: D1Database, tokenHash: string, kind: SsoPendingRow["kind"]) {
  const row = await drizzle(db)
    .select()
    .from(ssoPending)
    .where(
      and(
        eq(ssoPending.token_hash, tokenHash),
        eq(ssoPending.kind, kind),
        isNull(ssoPending.used_at),
        gt(ssoPending.expires_at, nowIso()),
      ),
    )
    .get();
  return row ?? null;
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
  return prepared(
    db,
    drizzle(db)
      .insert(ssoIdentities)
      .values({ org_id: orgId, subject, user_id: userId, created_at: nowIso() })
      .onConflictDoNothing(),
  );
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
  return accountStatements(db, { ...account, status: "active", verified: true });
}

export function joinStatement(db: D1Database, orgId: string, userId: string, role: string) {
  return prepared(
    db,
    drizzle(db)
      .insert(orgMemberships)
      .values({ org_id: orgId, user_id: userId, role, created_at: nowIso() })
      .onConflictDoNothing(),
  );
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
  return drizzle(db)
    .select({ address: emailAddresses.address, name: orgs.name })
    .from(orgMemberships)
    .innerJoin(
      emailAddresses,
      and(eq(emailAddresses.user_id, orgMemberships.user_id), eq(emailAddresses.is_primary, 1)),
    )
    .innerJoin(orgs, eq(orgs.id, orgMemberships.org_id))
    .where(and(eq(orgMemberships.org_id, orgId), ownerRole("org", "org_memberships")))
    .all();
}
