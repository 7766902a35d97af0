/**
 * The OAuth grants of MCP agents (issue 37, migration 0013, docs/decisions/oauth-agents.md): reads, and the
 * revocations as statements for the caller's batch (each a compare-and-set on `revoked_at IS NULL`, so the
 * event after it is written only by the call that ended the grant). Every query takes its database handle.
 */
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthClients, oauthGrants } from "../../../schema/identity";
import { prepared } from "../../lib/sql";

export type GrantRow = typeof oauthGrants.$inferSelect;

/** One grant by id, revoked or not; null when there is none. */
export async function grantById(db: D1Database, grantId: string): Promise<GrantRow | null> {
  const row = await drizzle(db).select().from(oauthGrants).where(eq(oauthGrants.id, grantId)).get();
  return row ?? null;
}

/** A live grant as the listings show it: the grant and its client's name and kind. */
export interface GrantListRow {
  id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  client_kind: "metadata_document" | "registered";
  site_id: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
}

/** The live grants of a person (`user_id`) or of a site (`site_id`), newest first (at most 200). */
export function liveGrants(db: D1Database, of: { user_id: string } | { site_id: string }) {
  const g = oauthGrants;
  const owner = "user_id" in of ? eq(g.user_id, of.user_id) : eq(g.site_id, of.site_id);
  return drizzle(db)
    .select({
      id: g.id,
      user_id: g.user_id,
      client_id: g.client_id,
      client_name: oauthClients.name,
      client_kind: oauthClients.kind,
      site_id: g.site_id,
      scope: g.scope,
      created_at: g.created_at,
      last_used_at: g.last_used_at,
    })
    .from(g)
    .innerJoin(oauthClients, eq(oauthClients.id, g.client_id))
    .where(and(owner, isNull(g.revoked_at)))
    .orderBy(desc(g.created_at), desc(g.id))
    .limit(200)
    .all();
}

/** Why a grant ended (`revoked_reason`), and by whom (`revoked_by`: a person's id, or null). */
export interface GrantEnd {
  reason: string;
  by: string | null;
  at: string;
}

/** Which grants a revocation ends: one by id, or every live one of a person, a site, or a pair. */
export type GrantsWhere =
  | { id: string; user_id?: string; site_id?: string }
  | { user_id: string }
  | { site_id: string }
  | { user_id: string; site_id: string }
  | { user_id: string; org_id: string };

function condition(where: GrantsWhere): SQL | undefined {
  const g = oauthGrants;
  const parts: SQL[] = [];
  if ("id" in where) parts.push(eq(g.id, where.id));
  if ("user_id" in where && where.user_id !== undefined) parts.push(eq(g.user_id, where.user_id));
  if ("site_id" in where && where.site_id !== undefined) parts.push(eq(g.site_id, where.site_id));
  if ("org_id" in where) parts.push(eq(g.org_id, where.org_id));
  return and(...parts, isNull(g.revoked_at));
}

/**
 * Ends the live grants `where` names (compare-and-set on `revoked_at IS NULL`: an ended grant keeps its
 * first end). A grant's codes and refresh tokens die with it: both are honoured only while it lives.
 */
export function revokeGrantsStatement(
  db: D1Database,
  where: GrantsWhere,
  end: GrantEnd,
): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .update(oauthGrants)
      .set({ revoked_at: end.at, revoked_reason: end.reason, revoked_by: end.by })
      .where(condition(where)),
  );
}

/** The ids and persons of the live grants `where` names (the events of an ending are written per grant). */
export function liveGrantIds(db: D1Database, where: GrantsWhere) {
  return drizzle(db)
    .select({ id: oauthGrants.id, user_id: oauthGrants.user_id, client_id: oauthGrants.client_id })
    .from(oauthGrants)
    .where(condition(where))
    .all();
}
