/** Full-text search over posts (`posts_search`, FTS5, migration 0016): ranked by bm25, keyset over (rank, id). */
import { batch, typed } from "../../lib/sql";
import { nextPublicationStatement, type PostRow, PUBLIC_WHERE, SUMMARY_COLUMNS } from "../posts/store";

/** Column weights of bm25 (title, summary, body): a word in the title counts most. */
const WEIGHTS = "10.0, 4.0, 1.0";

export interface SearchRow extends PostRow {
  score: number;
}

export interface SearchQuery {
  siteId: string;
  /** FTS5 MATCH expression (quoted terms only). */
  match: string;
  language: string;
  /** Public posts only (pk_ keys, keys without posts:write), else every post but deleted ones. */
  publicOnly: boolean;
  after: { score: number; id: string } | null;
  limit: number;
}

/**
 * One page of matches, best first (lower bm25 is better; up to limit + 1 rows), and the site's next
 * scheduled publication (until then public results cannot change by the clock alone), in one batch.
 */
export async function searchPosts(
  db: D1Database,
  query: SearchQuery,
  now: string,
): Promise<{ rows: SearchRow[]; nextPublicationAt: string | null }> {
  const visible = query.publicOnly ? PUBLIC_WHERE : "p.site_id = ? AND p.status != 'deleted'";
  const visibleParams = query.publicOnly ? [query.siteId, now] : [query.siteId];
  const after = query.after ? "WHERE (score, id) > (?, ?)" : "";
  const afterParams = query.after ? [query.after.score, query.after.id] : [];
  const sql = `SELECT * FROM (
      SELECT ${SUMMARY_COLUMNS}, bm25(posts_search, ${WEIGHTS}) AS score
      FROM posts_search JOIN posts p ON p.rowid = posts_search.rowid
      WHERE posts_search MATCH ? AND ${visible} AND p.language = ?
    ) ${after} ORDER BY score, id LIMIT ?`;
  const [rows, next] = await batch(db, [
    typed<SearchRow>(
      db.prepare(sql).bind(query.match, ...visibleParams, query.language, ...afterParams, query.limit + 1),
    ),
    nextPublicationStatement(db, query.siteId, now),
  ]);
  return { rows: rows.rows, nextPublicationAt: next.rows[0]?.at ?? null };
}
