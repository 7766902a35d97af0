/**
 * A live site's sitemap (sitemaps.org, every public post, up to 50,000 URLs) and RSS 2.0 feed (the 50
 * newest public posts of one language): no key, absolute URLs on the site's canonical host, through the
 * edge cache like the public listing (keyed by the site's content version, so a write purges them) and
 * never past the site's next scheduled publication. A site that is not live is the same 404 as none.
 */
import type { Env } from "../core/bindings";
import { cachedPublicAnswer, type EdgePlace, freshUntil, type PublicAnswer } from "../core/edge-cache";
import { postUrl, siteHost } from "../core/effects/outbound";
import { fail, problem } from "../errors";
import { canonicalLanguage } from "../posts/language";
import { type FeedPost, type FeedSite, liveSite, publicFeedPosts } from "./store";

export const SITEMAP_MAX_URLS = 50_000;
export const FEED_ITEMS = 50;

function xml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}

function sitemapXml(site: FeedSite, posts: FeedPost[], platformDomain: string): string {
  const urls = posts.map(
    (p) =>
      `<url><loc>${xml(postUrl(site, p, platformDomain))}</loc><lastmod>${xml(p.updated_at)}</lastmod></url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
}

function feedXml(site: FeedSite, language: string, posts: FeedPost[], platformDomain: string): string {
  const home = `https://${siteHost(site, platformDomain)}/`;
  const items = posts.map((p) =>
    [
      "<item>",
      `<title>${xml(p.title)}</title>`,
      `<link>${xml(postUrl(site, p, platformDomain))}</link>`,
      `<guid isPermaLink="false">${xml(p.id)}</guid>`,
      `<pubDate>${new Date(p.published_at!).toUTCString()}</pubDate>`,
      p.summary ? `<description>${xml(p.summary)}</description>` : "",
      p.author_name ? `<dc:creator>${xml(p.author_name)}</dc:creator>` : "",
      "</item>",
    ].join(""),
  );
  const built =
    posts
      .map((p) => p.updated_at)
      .sort()
      .at(-1) ?? "";
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    "<channel>",
    `<title>${xml(site.name)}</title>`,
    `<link>${xml(home)}</link>`,
    `<description>${xml(site.name)}</description>`,
    `<language>${xml(language)}</language>`,
    `<atom:link href="${xml(`${home}feed.xml`)}" rel="self" type="application/rss+xml"/>`,
    built ? `<lastBuildDate>${new Date(built).toUTCString()}</lastBuildDate>` : "",
    ...items,
    "</channel>",
    "</rss>",
    "",
  ].join("\n");
}

async function siteOf(env: Env, reference: string): Promise<FeedSite> {
  const site = await liveSite(env.DB, reference);
  if (!site) throw problem("NOT_FOUND", "No such site.");
  return site;
}

/** The XML of `kind` for the site, as a cached public answer (its body a JSON string of the XML). */
export async function siteFeed(
  env: Env,
  kind: "sitemap" | "feed",
  reference: string,
  languageParam: string | undefined,
  place: EdgePlace,
): Promise<PublicAnswer> {
  const site = await siteOf(env, reference);
  const language =
    kind === "sitemap"
      ? null
      : languageParam === undefined
        ? site.default_language
        : canonicalLanguage(languageParam) || fail("INVALID_LANGUAGE", "language must be a BCP-47 tag.");
  const cacheKey = { siteId: site.id, contentVersion: site.content_version, kind: "public" as const };
  return cachedPublicAnswer(place, cacheKey, kind, { language }, async (now) => {
    const at = new Date(now).toISOString();
    const limit = kind === "sitemap" ? SITEMAP_MAX_URLS : FEED_ITEMS;
    const { posts, nextPublicationAt } = await publicFeedPosts(env.DB, site.id, language, limit, at);
    const body =
      kind === "sitemap"
        ? sitemapXml(site, posts, env.PLATFORM_DOMAIN)
        : feedXml(site, language!, posts, env.PLATFORM_DOMAIN);
    return { value: body, freshUntil: freshUntil(now, nextPublicationAt) };
  });
}
