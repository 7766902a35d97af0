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
import { listPosts, type PostListRequest } from "./listing";
import { platformMediaId } from "./render/media-url";
import { renderBlocks } from "./render/render-blocks";
import { onePublicPost, publicReference } from "./resolve";
import { listItem, seoView } from "./shapes";
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
  const { limit, cursor, filters } = request;
  return cachedPublicAnswer(place, key, "posts", { limit, cursor, filters }, read);
}

/** A public post (PostDetail) by id or slug. */
export async function publicPost(
  env: Env,
  key: KeyContext,
  reference: string,
  language: string | null,
  place: EdgePlace,
): Promise<PublicAnswer> {
  const ref = publicReference(reference, language);
  return cachedPublicAnswer(place, key, "post", ref, async (now) => {
    const at = new Date(now).toISOString();
    const { rows, nextPublicationAt } = await readPublicPosts(env.DB, key.siteId, ref, at);
    const row = onePublicPost(rows.posts);
    return {
      value: postDetail(env, row, key.site, rows.media, at),
      freshUntil: freshUntil(now, nextPublicationAt),
    };
  });
}

/** The PostDetail shape: the list item plus the rendered body, the cover's URL and the SEO document. */
export function postDetail(
  env: Env,
  row: PostRow,
  site: SiteAddress,
  media: Map<string, MediaImageRow>,
  now: string,
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
  return {
    ...item,
    content_html: row.blocks_json ? renderBlocks(row.blocks_json, { mediaImage, mediaIdOfUrl }) : "",
    featured_image_url: item.featured_image?.url ?? null,
    seo: seoView(row),
  };
}
