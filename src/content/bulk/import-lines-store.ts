/** Lines already imported, by content hash: what makes `POST /v1/import` idempotent per line. */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { importLines } from "../../../schema/content";
import { prepared } from "../../lib/sql";

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
  return prepared(
    db,
    drizzle(db)
      .insert(importLines)
      .values({ site_id: siteId, line_hash: lineHash, post_id: postId, created_at: now }),
  );
}
