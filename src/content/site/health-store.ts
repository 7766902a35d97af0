import type { posts } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import type { SiteHealthFacts } from "../../lib/rpc";

/** At most this many sites per call (one bound JSON parameter, bounded work per RPC). */
export const HEALTH_FACTS_MAX_SITES = 100;

/**
 * The sites health sweep's facts about content, for a chunk of sites in one statement: whether anything
 * is published (a scheduled post whose time has come counts, as readers see it), and whether the site
 * has legal pages: a page, neither deleted nor archived, that the legal page generator placed under
 * /legal/ (`fields.secao = 'legal'`), or a hand-made one with slug `legal` or `legal-…`.
 */
export async function siteHealthFacts(
  db: D1Database,
  siteIds: string[],
  now: string,
): Promise<SiteHealthFacts[]> {
  const ids = [...new Set(siteIds.filter((id) => typeof id === "string"))].slice(0, HEALTH_FACTS_MAX_SITES);
  if (ids.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT s.value AS site_id,
         EXISTS (SELECT 1 FROM posts p WHERE p.site_id = s.value
           AND (p.status = 'published' OR (p.status = 'scheduled' AND p.published_at <= ?))) AS has_published,
         EXISTS (SELECT 1 FROM posts p WHERE p.site_id = s.value AND p.post_type = 'page'
           AND p.status NOT IN ('deleted', 'archived')
           AND (json_extract(p.fields, '$.secao') = 'legal' OR p.slug = 'legal' OR p.slug LIKE 'legal-%')) AS has_legal_pages
       FROM json_each(?) s`,
    )
    .bind(now, JSON.stringify(ids))
    .all<Row<typeof posts, "site_id"> & Computed<{ has_published: number; has_legal_pages: number }>>();
  return results.map((r) => ({
    site_id: r.site_id,
    has_published: r.has_published === 1,
    has_legal_pages: r.has_legal_pages === 1,
  }));
}
