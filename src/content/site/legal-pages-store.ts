/** Legal pages: the pages of a site whose `fields.secao` is `legal` (sites' legal page generator). */
import { POST_COLUMNS, type PostRow } from "../posts/store";

const LEGAL = `json_valid(fields) AND json_extract(fields, '$.secao') = 'legal'`;

/** The live (not deleted) page holding document `documento` of the site in `language`, if any. */
export async function legalPageOf(
  db: D1Database,
  siteId: string,
  language: string,
  documento: string,
): Promise<PostRow | null> {
  return db
    .prepare(
      `SELECT ${POST_COLUMNS} FROM posts WHERE site_id = ? AND language = ? AND fields IS NOT NULL
         AND json_extract(fields, '$.documento_legal') = ? AND ${LEGAL} AND status != 'deleted'
       ORDER BY id LIMIT 1`,
    )
    .bind(siteId, language, documento)
    .first<PostRow>();
}

/** The site's legal pages in `language` that exist for readers to come (not archived, not deleted), by `ordem`. */
export async function legalPagesOf(db: D1Database, siteId: string, language: string): Promise<PostRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${POST_COLUMNS} FROM posts WHERE site_id = ? AND language = ? AND fields IS NOT NULL AND ${LEGAL}
         AND status NOT IN ('archived', 'deleted')
       ORDER BY json_extract(fields, '$.ordem'), id`,
    )
    .bind(siteId, language)
    .all<PostRow>();
  return results;
}
