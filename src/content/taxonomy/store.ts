/** What the taxonomy counts read: public posts per category or tag slug, with the next scheduled publication. */
import type { Computed } from "../../lib/rows";
import { batch, query } from "../../lib/sql";
import { nextPublicationStatement, PUBLIC_WHERE } from "../posts/store";

export type TaxonomyKind = "categories" | "tags";

const COLUMN: Record<TaxonomyKind, string> = { categories: "category_slugs", tags: "tag_slugs" };

export type TermCount = Computed<{ slug: string; count: number }>;

/**
 * The slugs of one kind with their public post counts, most used first (then by slug), and the site's next
 * scheduled publication, in one batch.
 */
export async function termCounts(
  db: D1Database,
  siteId: string,
  kind: TaxonomyKind,
  language: string | null,
  now: string,
): Promise<{ counts: TermCount[]; nextPublicationAt: string | null }> {
  const byLanguage = language ? " AND p.language = ?" : "";
  const [terms, next] = await batch(db, [
    query<TermCount>(
      db,
      `SELECT j.value AS slug, COUNT(DISTINCT p.id) AS count
         FROM posts p, json_each(CASE WHEN json_valid(p.seo_json) THEN p.seo_json END, '$.${COLUMN[kind]}') j
         WHERE ${PUBLIC_WHERE}${byLanguage} AND j.type = 'text'
         GROUP BY j.value ORDER BY count DESC, j.value LIMIT 1000`,
      siteId,
      now,
      ...(language ? [language] : []),
    ),
    nextPublicationStatement(db, siteId, now),
  ]);
  return { counts: terms.rows, nextPublicationAt: next.rows[0]?.at ?? null };
}
