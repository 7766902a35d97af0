/** Lines already imported, by content hash: what makes `POST /v1/import` idempotent per line. */

export async function importedPostId(
  db: D1Database,
  siteId: string,
  lineHash: string,
): Promise<string | null> {
  const row = await db
    .prepare("SELECT post_id FROM import_lines WHERE site_id = ? AND line_hash = ?")
    .bind(siteId, lineHash)
    .first<{ post_id: string }>();
  return row?.post_id ?? null;
}

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
