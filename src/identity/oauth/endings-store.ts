/**
 * The endings of MCP agents' grants (issue 37, docs/decisions/oauth-agents.md "Endings"): the reads and the
 * guarded revocations the flows that end grants put in their own batch (a password reset or change, an
 * account's deletion request, a site's transfer, SSO enforcement, a membership's end). Each revocation is a
 * compare-and-set on `revoked_at IS NULL` (an ended grant keeps its first end), optionally ANDed with the
 * flow's own guard (the deletion still pending, the transfer accepted by this decision), so a flow whose
 * own write lost ends nothing. Every query takes its database handle.
 */
import { and, eq, exists, isNull, lte, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { accountDeletions, oauthGrants, transfers } from "../../../schema/identity";
import { prepared } from "../../lib/sql";

/** Which live grants an ending names: one by id, of a person, an organization, a site, or a combination. */
export interface GrantScope {
  id?: string;
  userId?: string;
  orgId?: string;
  siteId?: string;
  /** Only grants created up to this instant (a membership change ends what was approved under it). */
  createdUpTo?: string;
}

/** How a grant ended (`revoked_reason`, `revoked_by`, `revoked_at`). */
export interface GrantEndFields {
  reason: string;
  by: string | null;
  at: string;
}

function scopeCondition(scope: GrantScope): SQL | undefined {
  const g = oauthGrants;
  const parts: SQL[] = [isNull(g.revoked_at)];
  if (scope.id !== undefined) parts.push(eq(g.id, scope.id));
  if (scope.userId !== undefined) parts.push(eq(g.user_id, scope.userId));
  if (scope.orgId !== undefined) parts.push(eq(g.org_id, scope.orgId));
  if (scope.siteId !== undefined) parts.push(eq(g.site_id, scope.siteId));
  if (scope.createdUpTo !== undefined) parts.push(lte(g.created_at, scope.createdUpTo));
  return and(...parts);
}

/** The live grants `scope` names, as an ending reads them before its batch (one event per grant). */
export function liveGrantsIn(db: D1Database, scope: GrantScope) {
  const g = oauthGrants;
  return drizzle(db)
    .select({
      id: g.id,
      user_id: g.user_id,
      client_id: g.client_id,
      site_id: g.site_id,
      org_id: g.org_id,
      scope: g.scope,
    })
    .from(g)
    .where(scopeCondition(scope))
    .all();
}

/** The grants `where` selects, ended with `end`. */
function endGrantsWhere(db: D1Database, where: SQL | undefined, end: GrantEndFields): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .update(oauthGrants)
      .set({ revoked_at: end.at, revoked_reason: end.reason, revoked_by: end.by })
      .where(where),
  );
}

/** Ends one grant if it still lives (and the flow's `guard` holds). */
export function endGrantStatement(
  db: D1Database,
  grantId: string,
  end: GrantEndFields,
  guard?: SQL,
): D1PreparedStatement {
  return endGrantsWhere(db, and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revoked_at), guard), end);
}

/**
 * Ends every grant `scope` still names (and the `guard` allows): the catch-all after the per-grant
 * statements, for a grant approved between the ending's read and its batch.
 */
export function endRemainingStatement(
  db: D1Database,
  scope: GrantScope,
  end: GrantEndFields,
  guard?: SQL,
): D1PreparedStatement {
  return endGrantsWhere(db, and(scopeCondition(scope), guard), end);
}

/** The guard of a deletion request's batch: the account's deletion is pending (its INSERT won). */
export function deletionPending(db: D1Database, userId: string): SQL {
  const d = alias(accountDeletions, "pending_deletion");
  return exists(
    drizzle(db)
      .select({ one: sql`1` })
      .from(d)
      .where(and(eq(d.user_id, userId), isNull(d.erased_at))),
  );
}

/**
 * The guard of a transfer's acceptance batch: transfer `transferId` was accepted by this decision (its
 * `decided_at`) and moves the site (a share leaves the site, and its grants, with the origin).
 */
export function transferMoved(db: D1Database, transferId: string, decidedAt: string): SQL {
  const t = alias(transfers, "moving");
  return exists(
    drizzle(db)
      .select({ one: sql`1` })
      .from(t)
      .where(
        and(
          eq(t.id, transferId),
          eq(t.status, "accepted"),
          eq(t.mode, "transfer"),
          eq(t.decided_at, decidedAt),
        ),
      ),
  );
}
