/** Lines already imported, by content hash: what makes `POST /v1/import` idempotent per line. */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { importLines } from "../../../schema/content";

export async function importedPostId(
  db: D1Database,
  siteId: string,
  lineHash: string,
): Promise<string | null> {
  const row = await drizzle(db)
    .select({ post_id: importLines.post_id })
    .from(importLines)
    .where(and(eq(importLines.site_id, siteId), eq(importLines.line_hash, lineHash)))
    .get();
  return row?.post_id ?? null;
}

/** Prepared SQL: the statement runs inside the batch that writes the post. */
export function recordImportLineStatement(
  db: D1Database,
  siteId: string,
  lineHash: string,
  postId: string,
  now: string,
): D1PreparedStatement {
  return db
    .prepare("INSERT INTO import_lines (site_id, line_hash, post_id, created_at) VALUES (?, ?, ?, ?)")
    .bind(siteId, lineHash, postId, now);
}
