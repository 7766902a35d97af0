/**
 * The consent page's rows (issue 37, docs/decisions/oauth-agents.md "Consent"): consents in progress, and
 * the one batch that turns an approved consent into a grant and its first code. Every query takes its
 * database handle.
 */
import { and, count, eq, gt, isNull, lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthClients, oauthConsents, oauthGrants } from "../../../schema/identity";
import type { Computed } from "../../lib/rows";
import { batch, first, query } from "../../lib/sql";

export type ConsentRow = typeof oauthConsents.$inferSelect;

/** A client's self-chosen name; null when the client is gone. */
export async function clientName(db: D1Database, clientId: string): Promise<string | null> {
  const row = await drizzle(db)
    .select({ name: oauthClients.name })
    .from(oauthClients)
    .where(eq(oauthClients.id, clientId))
    .get();
  return row?.name ?? null;
}

/** A grant of this person, revoked or not (what its undo needs); null when there is none. */
export async function grantSummary(db: D1Database, grantId: string, userId: string) {
  const row = await drizzle(db)
    .select({ id: oauthGrants.id, client_id: oauthGrants.client_id, revoked_at: oauthGrants.revoked_at })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.user_id, userId)))
    .get();
  return row ?? null;
}

/** The consents of this person still open (undecided, unexpired) at `now`. */
export async function openConsentCount(db: D1Database, userId: string, now: string): Promise<number> {
  const c = oauthConsents;
  const row = await drizzle(db)
    .select({ n: count() })
    .from(c)
    .where(and(eq(c.user_id, userId), isNull(c.decided_at), gt(c.expires_at, now)))
    .get();
  return row?.n ?? 0;
}

/** Writes a new consent, after dropping this person's expired ones (they can never be decided). */
export async function insertConsent(db: D1Database, row: ConsentRow, now: string): Promise<void> {
  const c = oauthConsents;
  await batch(db, [
    drizzle(db)
      .delete(c)
      .where(and(eq(c.user_id, row.user_id), lte(c.expires_at, now))),
    drizzle(db).insert(c).values(row),
  ]);
}

/** One consent by id, whoever's; null when there is none. */
export async function consentById(db: D1Database, id: string): Promise<ConsentRow | null> {
  const row = await drizzle(db).select().from(oauthConsents).where(eq(oauthConsents.id, id)).get();
  return row ?? null;
}

/**
 * When the person signed in for this session: the first session of its refresh family (a refresh rotates
 * the session row, never the family). Null when the session is unknown.
 */
export async function sessionSignedInAt(
  db: D1Database,
  userId: string,
  sessionId: string,
): Promise<string | null> {
  const row = await first(
    query<Computed<{ at: string | null }>>(
      db,
      `SELECT MIN(s.created_at) AS at FROM sessions s
       WHERE s.user_id = ?1 AND s.family_id = (SELECT family_id FROM sessions WHERE id = ?2 AND user_id = ?1)`,
      userId,
      sessionId,
    ),
  );
  return row?.at ?? null;
}

export interface Approval {
  consentId: string;
  userId: string;
  csrfHash: string;
  grantId: string;
  siteId: string;
  orgId: string;
  /** Space-separated key scopes. */
  scope: string;
  codeHash: string;
  now: string;
  codeExpiresAt: string;
}

/** The consent, still the caller's, undecided, unexpired, with this CSRF hash (SQL, bound from ?1…?4). */
const OPEN_CONSENT = `c.id = ?1 AND c.user_id = ?2 AND c.csrf_hash = ?3 AND c.decided_at IS NULL AND c.expires_at > ?4`;

/**
 * The approval, ONE batch guarded by the consent's single use: the grant (`INSERT … SELECT` from the
 * consent while it is open), its first code (only beside that grant), the consent's `decided_at` (only
 * once the grant exists), then `event`, written only if the consent was decided here. Of concurrent
 * approvals of one consent the first batch wins; the others write nothing. True when this one won.
 */
export async function approveConsent(db: D1Database, a: Approval, event: D1PreparedStatement) {
  const guard = [a.consentId, a.userId, a.csrfHash, a.now] as const;
  const [grant] = await batch(db, [
    query<never>(
      db,
      `INSERT INTO oauth_grants (id, user_id, client_id, site_id, org_id, scope, resource, created_at)
       SELECT ?5, c.user_id, c.client_id, ?6, ?7, ?8, c.resource, ?4 FROM oauth_consents c WHERE ${OPEN_CONSENT}`,
      ...guard,
      a.grantId,
      a.siteId,
      a.orgId,
      a.scope,
    ),
    query<never>(
      db,
      `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, created_at, expires_at)
       SELECT ?5, g.id, c.client_id, c.redirect_uri, c.code_challenge, c.resource, ?4, ?6
       FROM oauth_consents c JOIN oauth_grants g ON g.id = ?7 AND g.user_id = c.user_id
       WHERE ${OPEN_CONSENT}`,
      ...guard,
      a.codeHash,
      a.codeExpiresAt,
      a.grantId,
    ),
    query<never>(
      db,
      `UPDATE oauth_consents AS c SET decided_at = ?4
       WHERE ${OPEN_CONSENT} AND EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = ?5)`,
      ...guard,
      a.grantId,
    ),
    event,
  ]);
  return grant.changes === 1;
}

/** Marks the open consent denied (decided without a grant); false when it was not open. */
export async function denyConsent(
  db: D1Database,
  d: { consentId: string; userId: string; csrfHash: string; now: string },
): Promise<boolean> {
  const [denied] = await batch(db, [
    query<never>(
      db,
      `UPDATE oauth_consents AS c SET decided_at = ?4 WHERE ${OPEN_CONSENT}`,
      d.consentId,
      d.userId,
      d.csrfHash,
      d.now,
    ),
  ]);
  return denied.changes === 1;
}

/**
 * The undo link's end of a grant, ONE batch: the grant's compare-and-set (`revoked_reason` "not_me"), then
 * `events` (each conditioned on the statement before it), then every session of the person ended, only
 * if this very batch revoked the grant (so a second click of an old link signs nobody out again), with the
 * credential epoch, as a factor's undo does (factors/store.ts `disownFactor`). True
 * when the grant was live and is now revoked.
 */
export async function revokeGrantByUndo(
  db: D1Database,
  u: { grantId: string; userId: string; now: string },
  events: D1PreparedStatement[],
  afterSessions: D1PreparedStatement,
): Promise<boolean> {
  const [revoked] = await batch(db, [
    query<never>(
      db,
      `UPDATE oauth_grants SET revoked_at = ?3, revoked_reason = 'not_me', revoked_by = ?2
       WHERE id = ?1 AND user_id = ?2 AND revoked_at IS NULL`,
      u.grantId,
      u.userId,
      u.now,
    ),
    ...events,
    query<never>(
      db,
      `UPDATE sessions SET revoked_at = ?3, revoked_reason = 'oauth_grant_not_me'
       WHERE user_id = ?2 AND revoked_at IS NULL AND EXISTS (
         SELECT 1 FROM oauth_grants WHERE id = ?1 AND user_id = ?2 AND revoked_at = ?3 AND revoked_reason = 'not_me')`,
      u.grantId,
      u.userId,
      u.now,
    ),
    afterSessions,
    // The account's credential epoch moves on too: a sign-in in flight (its proof read before) writes no session.
    query<never>(
      db,
      `UPDATE users SET credential_epoch = credential_epoch + 1, updated_at = ?3
       WHERE id = ?2 AND EXISTS (
         SELECT 1 FROM oauth_grants WHERE id = ?1 AND user_id = ?2 AND revoked_at = ?3 AND revoked_reason = 'not_me')`,
      u.grantId,
      u.userId,
      u.now,
    ),
  ]);
  return revoked.changes === 1;
}
