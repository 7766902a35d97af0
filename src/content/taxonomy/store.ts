/**
 * What the taxonomy reads and writes: public posts per category or tag slug (with the next scheduled
 * publication), and the names and descriptions a site gave its terms (`taxonomy_terms`, issue 35).
 */
import { and, eq, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { taxonomyTerms } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import { batch, first, inJsonEach, type Query, query } from "../../lib/sql";
import { nextPublicationStatement, PUBLIC_WHERE } from "../posts/store";

export type TaxonomyKind = "categories" | "tags";

/** How `taxonomy_terms.kind` spells a kind. */
export type TermKind = (typeof taxonomyTerms.$inferSelect)["kind"];

export const TERM_KIND: Record<TaxonomyKind, TermKind> = { categories: "category", tags: "tag" };

/** Where a post keeps the slugs of a kind, inside `seo_json`. */
const COLUMN: Record<TermKind, string> = { category: "category_slugs", tag: "tag_slugs" };

/** The slugs of one kind a post `p` carries (`json_each` rows `j`; `seo_json` that is no JSON carries none). */
function slugsOf(kind: TermKind): string {
  return `json_each(CASE WHEN json_valid(p.seo_json) THEN p.seo_json END, '$.${COLUMN[kind]}') j`;
}

/** A term's stored name (null: named from its slug) and description. */
export type TermNames = Row<typeof taxonomyTerms, "slug" | "name" | "description">;

export type TermCount = TermNames & Computed<{ count: number }>;

/**
 * The slugs of one kind with their public post counts, most used first (then by slug), their stored names,
 * the site's next scheduled publication and, with `withTotal`, how many slugs there are in all (the list
 * stops at 1,000): one batch.
 */
export async function termCounts(
  db: D1Database,
  siteId: string,
  kind: TaxonomyKind,
  language: string | null,
  now: string,
  withTotal: boolean,
): Promise<{ counts: TermCount[]; nextPublicationAt: string | null; total: number | null }> {
  const termKind = TERM_KIND[kind];
  const byLanguage = language ? " AND p.language = ?" : "";
  const params = [siteId, now, ...(language ? [language] : [])];
  const matching = `FROM posts p, ${slugsOf(termKind)}
    WHERE ${PUBLIC_WHERE}${byLanguage} AND j.type = 'text'`;
  const counts = query<TermCount>(
    db,
    `SELECT c.slug, c.count, t.name, t.description FROM (
       SELECT j.value AS slug, COUNT(DISTINCT p.id) AS count ${matching}
       GROUP BY j.value ORDER BY count DESC, j.value LIMIT 1000) c
     LEFT JOIN taxonomy_terms t ON t.site_id = ? AND t.kind = ? AND t.slug = c.slug
     ORDER BY c.count DESC, c.slug`,
    ...params,
    siteId,
    termKind,
  );
  const next = nextPublicationStatement(db, siteId, now);
  if (!withTotal) {
    const [terms, at] = await batch(db, [counts, next]);
    return { counts: terms.rows, nextPublicationAt: at.rows[0]?.at ?? null, total: null };
  }
  const total = query<Computed<{ total: number }>>(
    db,
    `SELECT COUNT(DISTINCT j.value) AS total ${matching}`,
    ...params,
  );
  const [terms, at, all] = await batch(db, [counts, next, total]);
  return {
    counts: terms.rows,
    nextPublicationAt: at.rows[0]?.at ?? null,
    total: all.rows[0]?.total ?? 0,
  };
}

/** What a term edit sets: only the fields sent (undefined: unchanged). */
export interface TermEdit {
  name?: string;
  description?: string | null;
}

/**
 * A term's edit, in one statement: written only when the term exists on the site (a post that is not
 * deleted carries its slug, in any status, or it has a row already), the row made on its first edit. Only
 * the sent fields change. Returns the term as stored, or null when the site has no such term.
 */
export function editTermStatement(
  db: D1Database,
  siteId: string,
  kind: TermKind,
  slug: string,
  edit: TermEdit,
  now: string,
): Query<TermNames> {
  const setName = edit.name !== undefined ? 1 : 0;
  const setDescription = edit.description !== undefined ? 1 : 0;
  return query<TermNames>(
    db,
    `INSERT INTO taxonomy_terms (site_id, kind, slug, name, description, created_at, updated_at)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?6
     WHERE EXISTS (SELECT 1 FROM taxonomy_terms WHERE site_id = ?1 AND kind = ?2 AND slug = ?3)
        OR EXISTS (SELECT 1 FROM posts p, ${slugsOf(kind)}
                   WHERE p.site_id = ?1 AND p.status != 'deleted' AND j.type = 'text' AND j.value = ?3)
     ON CONFLICT (site_id, kind, slug) DO UPDATE SET
       name = CASE WHEN ?7 THEN excluded.name ELSE name END,
       description = CASE WHEN ?8 THEN excluded.description ELSE description END,
       updated_at = excluded.updated_at
     RETURNING slug, name, description`,
    siteId,
    kind,
    slug,
    edit.name ?? null,
    edit.description ?? null,
    now,
    setName,
    setDescription,
  );
}

export function editTerm(
  db: D1Database,
  siteId: string,
  kind: TermKind,
  slug: string,
  edit: TermEdit,
  now: string,
): Promise<TermNames | null> {
  return first(editTermStatement(db, siteId, kind, slug, edit, now));
}

/** A stored term with its kind (what a post detail shows beside its slugs). */
export type PostTerm = Row<typeof taxonomyTerms, "kind" | "slug" | "name" | "description">;

/** The stored names of these category and tag slugs of the site (the others have none). */
export async function storedTerms(
  db: D1Database,
  siteId: string,
  slugs: { category_slugs: string[]; tag_slugs: string[] },
): Promise<PostTerm[]> {
  const t = taxonomyTerms;
  return drizzle(db)
    .select({ kind: t.kind, slug: t.slug, name: t.name, description: t.description })
    .from(t)
    .where(
      and(
        eq(t.site_id, siteId),
        or(
          and(eq(t.kind, "category"), inJsonEach(t.slug, slugs.category_slugs)),
          and(eq(t.kind, "tag"), inJsonEach(t.slug, slugs.tag_slugs)),
        ),
      ),
    )
    .all();
}
