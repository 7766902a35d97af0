/**
 * The public post reads, `GET /v1/posts` (without `status`) and `GET /v1/posts/{reference}`, through the
 * edge cache (`edge-cache.ts`). A miss is one D1 round trip (one batch: the rows, the media they show, the
 * site's next publication); a hit is none. The key's context comes from the isolate's cache when warm
 * (`keys/key-cache.ts`) and the read quota from the rate-limiting bindings, so a warm public read spends no
 * storage hop at all (docs/decisions/content.md, "Read path").
 */

import type { Env } from "../core/bindings";
import { clockNow } from "../core/clock";
import {
  cachedPublicAnswer,
  type EdgePlace,
  type FreshValue,
  freshUntil,
  type PublicAnswer,
  publicAnswer,
} from "../core/edge-cache";
import type { KeyContext, SiteAddress } from "../keys/key-context";
import { imageView } from "../media/image-view";
import type { MediaImageRow } from "../media/media-image";
import { type PostTerm, storedTerms } from "../taxonomy/store";
import { postTerms } from "../taxonomy/taxonomy";
import { listPosts, type PostListRequest } from "./listing";
import { platformMediaId } from "./render/media-url";
import { renderBlocks } from "./render/render-blocks";
import { onePublicPost, publicReference } from "./resolve";
import { listItem, seoView, taxonomy } from "./shapes";
import { type PostRow, readPublicPosts } from "./store";

/** One page of the public listing (`request.statuses` is null). */
export async function publicPostList(
  env: Env,
  key: KeyContext,
  request: PostListRequest,
  place: EdgePlace,
): Promise<PublicAnswer> {
  const read = async (now: number): Promise<FreshValue> => {
    const page = await listPosts(env, key.site, request, new Date(now).toISOString());
    return {
      value: page.body,
      freshUntil: page.mode === "public" ? freshUntil(now, page.nextPublicationAt) : now,
    };
  };
  // `since` is a sync client's watermark: always read from D1, never from an entry that may lag a write
  // made through another isolate (and each watermark is its own listing: a cache would rarely hit anyway).
  // Never cached, so the page alone is read (one statement), not the site's next publication.
  if (request.filters.since !== null) {
    const page = await listPosts(env, key.site, request, new Date(clockNow()).toISOString(), false);
    return publicAnswer(page.body);
  }
  const { limit, cursor, filters, total } = request;
  // A page with its total is its own entry (one without it keeps its key: `total` only when asked).
  const params = { limit, cursor, filters, ...(total ? { total } : {}) };
  return cachedPublicAnswer(place, key, "posts", params, read);
}

/**
 * A public post (PostDetail) by id or slug. `seo` only for a key with `seo:read` (issue 35), as the `/seo`
 * route requires: the answers with and without it are cached apart. The stored names of its terms are a
 * second read, only when the post carries terms (one batch with the post needs posts/store.ts to take it).
 */
export async function publicPost(
  env: Env,
  key: KeyContext,
  reference: string,
  language: string | null,
  place: EdgePlace,
): Promise<PublicAnswer> {
  const ref = publicReference(reference, language);
  const seo = key.scopes.has("seo:read");
  return cachedPublicAnswer(place, key, "post", { ...ref, seo }, async (now) => {
    const at = new Date(now).toISOString();
    const { rows, nextPublicationAt } = await readPublicPosts(env.DB, key.siteId, ref, at);
    const row = onePublicPost(rows.posts);
    // A post without terms spends no read on their names.
    const slugs = taxonomy(row);
    const named = slugs.category_slugs.length + slugs.tag_slugs.length > 0;
    const terms = named ? await storedTerms(env.DB, key.siteId, slugs) : [];
    return {
      value: postDetail(env, row, key.site, rows.media, at, { seo, terms }),
      freshUntil: freshUntil(now, nextPublicationAt),
    };
  });
}

/** What a post detail shows beyond the row: the SEO document (or not), the stored names of its terms. */
export interface DetailExtras {
  seo: boolean;
  terms: readonly PostTerm[];
}

/**
 * The PostDetail shape: the list item plus the rendered body, the cover's URL, the named terms and the SEO
 * document. The cover and the body's images come from `media` (the rows the post references, with their
 * alt text and caption).
 */
export function postDetail(
  env: Env,
  row: PostRow,
  site: SiteAddress,
  media: Map<string, MediaImageRow>,
  now: string,
  extras: DetailExtras = { seo: true, terms: [] },
) {
  const base = env.MEDIA_PUBLIC_BASE;
  const find = (id: string) => media.get(id.toUpperCase()) ?? media.get(id);
  const mediaImage = (id: string) => {
    const found = find(id);
    return found ? imageView(base, found, "") : null;
  };
  // The standard image form on the site's own media renders like media_id (render/media-url.ts).
  const mediaIdOfUrl = (url: string) => platformMediaId(base, row.site_id, url);
  const item = listItem(row, now, { site, platformDomain: env.PLATFORM_DOMAIN, mediaBase: base });
  const cover = item.featured_image && row.featured_image_id ? find(row.featured_image_id) : undefined;
  const featured = cover ? imageView(base, cover, row.title) : item.featured_image;
  return {
    ...item,
    featured_image: featured,
    content_html: row.blocks_json ? renderBlocks(row.blocks_json, { mediaImage, mediaIdOfUrl }) : "",
    featured_image_url: featured?.url ?? null,
    ...postTerms(item, extras.terms),
    ...(extras.seo ? { seo: seoView(row) } : {}),
  };
}
