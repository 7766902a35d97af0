/** Legal pages: the pages of a site whose `fields.secao` is `legal` (sites' legal page generator). */
import { and, asc, eq, isNotNull, ne, notInArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { posts } from "../../../schema/content";
import { POST_SELECT, type PostRow } from "../posts/store";

/** The post's `fields` is JSON naming it a legal page (checked after `fields IS NOT NULL`, before any other read of it). */
const LEGAL = sql`json_valid(${posts.fields}) AND json_extract(${posts.fields}, '$.secao') = 'legal'`;

/** The site's legal pages (any status) in `language`. */
const legalIn = (siteId: string, language: string) =>
  and(eq(posts.site_id, siteId), eq(posts.language, language), isNotNull(posts.fields), LEGAL);

/** The live (not deleted) page holding document `documento` of the site in `language`, if any. */
export async function legalPageOf(
  db: D1Database,
  siteId: string,
  language: string,
  documento: string,
): Promise<PostRow | null> {
  const row = await drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(
      and(
        legalIn(siteId, language),
        sql`json_extract(${posts.fields}, '$.documento_legal') = ${documento}`,
        ne(posts.status, "deleted"),
      ),
    )
    .orderBy(asc(posts.id))
    .limit(1)
    .get();
  return row ?? null;
}

/** The site's legal pages in `language` that exist for readers to come (not archived, not deleted), by `ordem`. */
export async function legalPagesOf(db: D1Database, siteId: string, language: string): Promise<PostRow[]> {
  return drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(and(legalIn(siteId, language), notInArray(posts.status, ["archived", "deleted"])))
    .orderBy(sql`json_extract(${posts.fields}, '$.ordem')`, asc(posts.id))
    .all();
}
