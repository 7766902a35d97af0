/**
 * `GET /v1/categories` and `GET /v1/tags`: the site's category and tag slugs with the number of public
 * posts carrying each (per language with `?language=`). Taxonomy lives in each post's `seo_json`
 * (`category_slugs`, `tag_slugs`), so the counts are one grouped read over the site's public posts, served
 * through the public-reads edge cache (`edge-cache.ts`): keyed by the site's content version, which every
 * post write moves, so a write purges the counts with the post list and a warm read spends no storage hop.
 */

import type { Env } from "../core/bindings";
import { cachedPublicAnswer, type EdgePlace, freshUntil, type PublicAnswer } from "../core/edge-cache";
import type { KeyContext } from "../keys/key-context";
import { type TaxonomyKind, termCounts } from "./store";

export type { TaxonomyKind } from "./store";

export interface TaxonomyTerm {
  slug: string;
  name: string;
  count: number;
}

/** A term's name: posts carry slugs only, so the name is the slug in words ("open-source" -> "Open source"). */
export function termName(slug: string): string {
  const words = slug.replace(/[-_]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The terms of one kind with their public post counts, most used first (then by slug). */
async function readTerms(
  db: D1Database,
  siteId: string,
  kind: TaxonomyKind,
  language: string | null,
  now: string,
): Promise<{ terms: TaxonomyTerm[]; nextPublicationAt: string | null }> {
  const { counts, nextPublicationAt } = await termCounts(db, siteId, kind, language, now);
  return {
    terms: counts.map((t) => ({ slug: t.slug, name: termName(t.slug), count: t.count })),
    nextPublicationAt,
  };
}

/** The answer `{ items }`, cached like the public post list (and purged with it). */
export function taxonomyAnswer(
  env: Env,
  key: KeyContext,
  kind: TaxonomyKind,
  language: string | null,
  place: EdgePlace,
): Promise<PublicAnswer> {
  return cachedPublicAnswer(place, key, kind, { language }, async (now) => {
    const { terms, nextPublicationAt } = await readTerms(
      env.DB,
      key.siteId,
      kind,
      language,
      new Date(now).toISOString(),
    );
    return { value: { items: terms }, freshUntil: freshUntil(now, nextPublicationAt) };
  });
}
