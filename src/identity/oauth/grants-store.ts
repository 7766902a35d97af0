/**
 * The OAuth grants of MCP agents (issue 37, migration 0013, docs/decisions/oauth-agents.md): reads, and the
 * revocations as statements for the caller's batch (each a compare-and-set on `revoked_at IS NULL`, so the
 * event after it is written only by the call that ended the grant). Every query takes its database handle.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthClients, oauthGrants } from "../../../schema/identity";

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

/**
 * Which grants a revocation ends: one by id (within a person's or a site's, for the walls), or every live one
 * of a person, a site, or a pair (grants.ts `revokeGrants`, through the endings' statements).
 */
export type GrantsWhere =
  | { id: string; user_id?: string; site_id?: string }
  | { user_id: string }
  | { site_id: string }
  | { user_id: string; site_id: string }
  | { user_id: string; org_id: string };
