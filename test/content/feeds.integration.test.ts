/**
 * Sitemap and RSS feed of a site (issue 22): no key and no Origin, public posts only, absolute URLs on the
 * canonical host, cached like the listing and purged with it, 404 for a site that is not live.
 */
import { describe, expect, it } from "vitest";
import { call, content, createPost, makeSite, tenant } from "../support/content-helpers";

const get = (path: string, headers: Record<string, string> = {}) =>
  content.fetch(new Request(`http://content.test${path}`, { headers }));

describe("sitemap.xml and feed.xml", () => {
  it("list public posts only, with absolute URLs on the canonical host, by slug or id, without a key", async () => {
    const t = await tenant();
    const live = await createPost(t.ck, {
      title: "Fish & <Chips>",
      summary: 'A "great" dish',
      status: "published",
    });
    const pt = await createPost(t.ck, { title: "Peixe", language: "pt", status: "published" });
    await createPost(t.ck, { title: "Hidden draft" });
    await createPost(t.ck, { title: "Later", status: "scheduled", published_at: "2099-01-01T00:00:00Z" });
    const host = `https://${t.site.primary_domain}`;
    for (const ref of [t.site.slug, t.site.id]) {
      const res = await get(`/v1/sites/${ref}/sitemap.xml`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/xml");
      const text = await res.text();
      expect(text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
      expect(text).toContain(`<loc>${host}/${live.slug}</loc>`);
      expect(text).toContain(`<loc>${host}/pt/${pt.slug}</loc>`);
      expect(text.match(/<url>/g)).toHaveLength(2);
    }
    const feed = await get(`/v1/sites/${t.site.slug}/feed.xml`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toContain("application/rss+xml");
    const rss = await feed.text();
    expect(rss).toContain('<rss version="2.0"');
    expect(rss).toContain("<title>Fish &amp; &lt;Chips&gt;</title>");
    expect(rss).toContain("<description>A &quot;great&quot; dish</description>");
    expect(rss).toContain(`<link>${host}/${live.slug}</link>`);
    expect(rss).not.toContain("Peixe");
    expect(rss).not.toContain("Hidden draft");
    expect(rss).not.toContain("Later");
    const ptFeed = await (await get(`/v1/sites/${t.site.slug}/feed.xml?language=pt`)).text();
    expect(ptFeed).toContain("Peixe");
    expect(ptFeed).toContain("<language>pt</language>");
  });

  it("are cached with an ETag (304) and purged with the listing: a new post shows at once", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "First", status: "published" });
    const first = await get(`/v1/sites/${t.site.slug}/feed.xml`);
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    expect((await get(`/v1/sites/${t.site.slug}/feed.xml`, { "if-none-match": etag })).status).toBe(304);
    const second = await createPost(t.ck, { title: "Second", status: "published" });
    const after = await get(`/v1/sites/${t.site.slug}/feed.xml`, { "if-none-match": etag });
    expect(after.status).toBe(200);
    expect(await after.text()).toContain("Second");
    await call("POST", `/v1/posts/${second.id}/unpublish`, { key: t.ck });
    expect(await (await get(`/v1/sites/${t.site.slug}/sitemap.xml`)).text()).not.toContain(second.slug);
  });

  it("a site that is not live, an unknown site and a bad language are refused (404 alike, 400)", async () => {
    const suspended = await makeSite({ status: "suspended" });
    const missing = await get("/v1/sites/no-such-site/sitemap.xml");
    expect(missing.status).toBe(404);
    const body = await missing.json();
    for (const path of [`/v1/sites/${suspended.slug}/sitemap.xml`, `/v1/sites/${suspended.id}/feed.xml`]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(body);
    }
    const t = await tenant();
    expect((await get(`/v1/sites/${t.site.slug}/feed.xml?language=%25%25`)).status).toBe(400);
  });
});
