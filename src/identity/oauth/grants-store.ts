/**
 * The OAuth grants of MCP agents (issue 37, migration 0013, docs/decisions/oauth-agents.md): reads and the
 * one-statement ends. Every query takes its database handle.
 */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthGrants } from "../../../schema/identity";

export type GrantRow = typeof oauthGrants.$inferSelect;

/** One grant by id, revoked or not; null when there is none. */
export async function grantById(db: D1Database, grantId: string): Promise<GrantRow | null> {
  const row = await drizzle(db).select().from(oauthGrants).where(eq(oauthGrants.id, grantId)).get();
  return row ?? null;
}
