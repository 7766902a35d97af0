/**
 * `GET /v1/categories` and `GET /v1/tags`: the site's category and tag slugs with the number of public
 * posts carrying each (per language with `?language=`). Taxonomy lives in each post's `seo_json`
 * (`category_slugs`, `tag_slugs`), so the counts are one grouped read over the site's public posts, served
 * through the public-reads edge cache (`edge-cache.ts`): keyed by the site's content version, which every
 * post write moves, so a write purges the counts with the post list and a warm read spends no storage hop.
 *
 * `PATCH /v1/categories/{slug}` and `PATCH /v1/tags/{slug}` (issue 35): a term's name and description,
 * stored in `taxonomy_terms` (a term without a stored name is named from its slug, as before). A term
 * exists while a post that is not deleted carries it, or once it has been edited.
 */

import type { Env } from "../core/bindings";
import { cachedPublicAnswer, type EdgePlace, freshUntil, type PublicAnswer } from "../core/edge-cache";
import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { isValidTypeSlug } from "../posts/slug";
import { editTerm, type PostTerm, type TaxonomyKind, TERM_KIND, type TermEdit, termCounts } from "./store";

export type { TaxonomyKind } from "./store";

/** A term as the answers show it. */
export interface TermView {
  slug: string;
  name: string;
  description: string | null;
}

export interface TaxonomyTerm extends TermView {
  count: number;
}

/** A name derived from a slug: the slug in words ("open-source" -> "Open source"). */
export function termName(slug: string): string {
  const words = slug.replace(/[-_]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A term's view: its stored name when it has one (a stored name wins), else its slug in words. */
export function termView(slug: string, stored: { name: string | null; description: string | null } | null) {
  return { slug, name: stored?.name ?? termName(slug), description: stored?.description ?? null };
}

/** The answer `{ items[, total] }`, cached like the public post list (and purged with it). */
export function taxonomyAnswer(
  env: Env,
  key: KeyContext,
  kind: TaxonomyKind,
  query: { language: string | null; total: boolean },
  place: EdgePlace,
): Promise<PublicAnswer> {
  return cachedPublicAnswer(place, key, kind, query, async (now) => {
    const at = new Date(now).toISOString();
    const read = await termCounts(env.DB, key.siteId, kind, query.language, at, query.total);
    const items = read.counts.map((t) => ({ ...termView(t.slug, t), count: t.count }));
    return {
      value: { items, ...(read.total !== null ? { total: read.total } : {}) },
      freshUntil: freshUntil(now, read.nextPublicationAt),
    };
  });
}

/**
 * `PATCH /v1/{kind}/{slug}`: only the sent fields change; nothing editable is 400, a term the site does not
 * have (no post carries it and it was never edited; another site's) 404.
 */
export async function editTaxonomyTerm(
  env: Env,
  siteId: string,
  kind: TaxonomyKind,
  slug: string,
  edit: TermEdit,
): Promise<TermView> {
  if (edit.name === undefined && edit.description === undefined) {
    fail("NOTHING_EDITABLE", "The body contains no editable field (name, description).");
  }
  const stored = isValidTypeSlug(slug)
    ? await editTerm(env.DB, siteId, TERM_KIND[kind], slug, edit, new Date().toISOString())
    : null;
  if (!stored) fail("NOT_FOUND", `No such ${kind === "categories" ? "category" : "tag"}.`);
  return termView(stored.slug, stored);
}

/**
 * A post's terms with their names (`categories`, `tags` of a post detail), in the order the post lists
 * the slugs; `stored` holds the site's stored names of (some of) them.
 */
export function postTerms(
  slugs: { category_slugs: string[]; tag_slugs: string[] },
  stored: readonly PostTerm[],
): { categories: TermView[]; tags: TermView[] } {
  const find = (kind: PostTerm["kind"], slug: string) =>
    stored.find((t) => t.kind === kind && t.slug === slug) ?? null;
  return {
    categories: slugs.category_slugs.map((s) => termView(s, find("category", s))),
    tags: slugs.tag_slugs.map((s) => termView(s, find("tag", s))),
  };
}
