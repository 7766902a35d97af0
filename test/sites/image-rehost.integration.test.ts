/**
 * Rehosting of external settings images on PATCH through content's image ingest (content's fake
 * internet: img.test/ok.png ready, slow.png too slow, error.png 503, missing.png 404, not-image.png,
 * private.test non-public, redirect-private).
 */
import { describe, expect, it } from "vitest";
import {
  api,
  forceStoredSettings,
  makeSite,
  type SiteBody,
  sitesEnv,
  storedRow,
  storedSettings,
} from "../support/sites-helpers";

const patchSettings = (id: string, headers: Record<string, string>, settings: unknown) =>
  api<
    SiteBody & {
      invalid_images?: { path: string; url: string; reason: string }[];
      detail?: string;
      code?: string;
    }
  >("PATCH", `/api/v1/sites/${id}`, { headers, body: { settings } });

const OK = "https://img.test/ok.png";
const SLOW = "https://img.test/slow.png";
const TRANSIENT = "https://img.test/error.png";
const MISSING = "https://img.test/missing.png";
const NOT_IMAGE = "https://img.test/not-image.png";
const PRIVATE = "http://private.test/x.png";
const REDIRECT_PRIVATE = "https://img.test/redirect-private";

describe("PATCH settings: rehosting of external images", () => {
  it("ready: the response and storage carry the CDN URL, and logo_media_id receives the asset", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, { logo_url: OK });
    expect(res.status).toBe(200);
    const logoUrl = res.body.settings.logo_url as string;
    expect(logoUrl.startsWith(sitesEnv.MEDIA_PUBLIC_BASE)).toBe(true);
    expect(typeof res.body.settings.logo_media_id).toBe("string");
    expect(JSON.parse((await storedSettings(site.id))!)).toEqual(res.body.settings);
  });

  it("ready: favicon_png_url and favicon_ico_url receive their media ids; og image is rehosted", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, {
      favicon_png_url: OK,
      favicon_ico_url: "https://img.test/ok.ico",
      seo: { default_og_image: "https://img.test/ok.jpg" },
    });
    expect(res.status).toBe(200);
    const s = res.body.settings as Record<string, unknown> & { seo: { default_og_image: string } };
    expect(typeof s.favicon_png_media_id).toBe("string");
    expect(typeof s.favicon_ico_media_id).toBe("string");
    expect(s.seo.default_og_image.startsWith(sitesEnv.MEDIA_PUBLIC_BASE)).toBe(true);
  });

  it("img src inside about_html is rehosted", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, { about_html: `<p>hi</p><img src="${OK}" alt="x">` });
    expect(res.status).toBe(200);
    expect(res.body.settings.about_html).not.toContain("img.test");
    expect(res.body.settings.about_html).toContain(sitesEnv.MEDIA_PUBLIC_BASE);
  });

  it("URLs of the site itself and site paths are not external", async () => {
    const { site, owner } = await makeSite();
    const own = `https://${site.slug}.sites.localhost/logo.png`;
    const res = await patchSettings(site.id, owner, { logo_url: own, favicon_png_url: "/favicon.png" });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({ logo_url: own, favicon_png_url: "/favicon.png" });
  });

  it("not ready in time: the external URL is kept, 200 within the ingest wait", async () => {
    const { site, owner } = await makeSite();
    const started = Date.now();
    const res = await patchSettings(site.id, owner, { logo_url: SLOW });
    expect(Date.now() - started).toBeLessThan(4500);
    expect(res.status).toBe(200);
    expect(res.body.settings.logo_url).toBe(SLOW);
    expect(res.body.settings).not.toHaveProperty("logo_media_id");
    expect(JSON.parse((await storedSettings(site.id))!).logo_url).toBe(SLOW);
  });

  it("a media id sent next to an external URL that is not rehosted yet is dropped (it names another asset)", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, {
      logo_url: TRANSIENT,
      logo_media_id: "01JD8X5Q7Z3M4N5P6R7S8T9V0W",
      favicon_png_url: "/favicon.png",
      favicon_png_media_id: "kept-with-a-site-path",
    });
    expect(res.status).toBe(200);
    expect(res.body.settings).not.toHaveProperty("logo_media_id");
    expect(res.body.settings.favicon_png_media_id).toBe("kept-with-a-site-path");
    expect(JSON.parse((await storedSettings(site.id))!)).toEqual(res.body.settings);
  });

  it("transient rejection (503): the external URL is kept, 200", async () => {
    const { site, owner } = await makeSite();
    const res = await patchSettings(site.id, owner, { logo_url: TRANSIENT });
    expect(res.status).toBe(200);
    expect(res.body.settings.logo_url).toBe(TRANSIENT);
  });

  describe("422 IMAGEM_EXTERNA_INVALIDA: a NEW image refused for good, NOTHING stored", () => {
    for (const [label, url] of [
      ["404", MISSING],
      ["not an image", NOT_IMAGE],
      ["non-public host", PRIVATE],
      ["redirect to a private host", REDIRECT_PRIVATE],
    ] as const) {
      it(label, async () => {
        const { site, owner } = await makeSite({ settings: { customization: { layout: { radius: 4 } } } });
        const before = await storedRow(site.id);
        const res = await patchSettings(site.id, owner, {
          logo_url: url,
          customization: { layout: { radius: 9 } },
        });
        expect(res.status).toBe(422);
        expect(res.contentType).toContain("application/problem+json");
        expect(res.body.code).toBe("IMAGEM_EXTERNA_INVALIDA");
        expect(res.body.detail).toContain(url);
        expect(res.body.invalid_images).toHaveLength(1);
        expect(res.body.invalid_images?.[0]).toMatchObject({ path: "settings.logo_url", url });
        expect(typeof res.body.invalid_images?.[0]?.reason).toBe("string");
        expect(await storedRow(site.id)).toEqual(before);
      });
    }

    it("a ready image next to a refused one is not stored either", async () => {
      const { site, owner } = await makeSite();
      const before = await storedRow(site.id);
      const res = await patchSettings(site.id, owner, { logo_url: OK, favicon_png_url: MISSING });
      expect(res.status).toBe(422);
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("detail cites the first with a note of how many others; invalid_images lists them", async () => {
      const { site, owner } = await makeSite();
      const res = await patchSettings(site.id, owner, {
        logo_url: MISSING,
        favicon_png_url: NOT_IMAGE,
        seo: { default_og_image: PRIVATE },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toContain(MISSING);
      expect(res.body.detail).toContain("and 2 others");
      expect(res.body.invalid_images?.map((i) => i.url)).toEqual([MISSING, NOT_IMAGE, PRIVATE]);
    });

    it("invalid_images lists up to 20", async () => {
      const { site, owner } = await makeSite();
      const html = Array.from({ length: 23 }, () => `<img src="${MISSING}">`).join("");
      const res = await patchSettings(site.id, owner, { about_html: html });
      expect(res.status).toBe(422);
      expect(res.body.invalid_images).toHaveLength(20);
      expect(res.body.detail).toContain("and 22 others");
    });
  });

  describe("a URL already stored never causes refusal", () => {
    it("an external URL kept earlier and now refused for good stays, 200", async () => {
      const { site, owner } = await makeSite();
      await forceStoredSettings(site.id, JSON.stringify({ logo_url: MISSING }));
      const res = await patchSettings(site.id, owner, {
        logo_url: MISSING,
        customization: { theme_base: "dark" },
      });
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject({ logo_url: MISSING, customization: { theme_base: "dark" } });
    });

    it("moved to another field it is still not new", async () => {
      const { site, owner } = await makeSite();
      await forceStoredSettings(site.id, JSON.stringify({ logo_url: MISSING }));
      const res = await patchSettings(site.id, owner, { favicon_png_url: MISSING });
      expect(res.status).toBe(200);
    });

    it("but a new refused URL beside it is still 422", async () => {
      const { site, owner } = await makeSite();
      await forceStoredSettings(site.id, JSON.stringify({ logo_url: MISSING }));
      const res = await patchSettings(site.id, owner, { logo_url: MISSING, favicon_png_url: NOT_IMAGE });
      expect(res.status).toBe(422);
      expect(res.body.invalid_images?.map((i) => i.url)).toEqual([NOT_IMAGE]);
    });
  });
});
