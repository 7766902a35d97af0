/**
 * OAuth clients (issue 37, migration 0013, docs/decisions/oauth-agents.md "Clients"): a registration's row
 * and a metadata document's cached row. Every query takes its database handle.
 *
 * `metadata_json`: a registered client's metadata as registered (only the members identity understood); a
 * document client's `{"document": <the document as served>, "max_age_seconds": <its bounded lifetime>}`,
 * the lifetime counted from `fetched_at` (the time of the last good fetch).
 */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { oauthClients } from "../../../schema/identity";

export type ClientRow = typeof oauthClients.$inferSelect;
export type NewClientRow = typeof oauthClients.$inferInsert;

/** One client by its client_id; null when there is none. */
export async function clientById(db: D1Database, clientId: string): Promise<ClientRow | null> {
  const row = await drizzle(db).select().from(oauthClients).where(eq(oauthClients.id, clientId)).get();
  return row ?? null;
}

/** A new registration (its id is fresh: a conflict is a bug, and throws). */
export async function insertRegisteredClient(db: D1Database, row: NewClientRow): Promise<void> {
  await drizzle(db)
    .insert(oauthClients)
    .values({ ...row, kind: "registered" });
}

/**
 * A metadata document's row, written after a good fetch: created on the client's first sight, replaced on
 * every refetch (its `created_at` kept). Only a document row is ever replaced: the `setWhere` keeps a
 * registration untouched even if an id were shared (they cannot be: `mcp_…` is never a URL).
 */
export async function saveDocumentClient(db: D1Database, row: NewClientRow): Promise<void> {
  const { id, created_at: _created, ...fields } = row;
  await drizzle(db)
    .insert(oauthClients)
    .values({ ...row, kind: "metadata_document" })
    .onConflictDoUpdate({
      target: oauthClients.id,
      set: { ...fields, kind: "metadata_document" },
      setWhere: and(eq(oauthClients.id, id), eq(oauthClients.kind, "metadata_document")),
    });
}
