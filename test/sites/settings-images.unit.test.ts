import { describe, expect, it } from "vitest";
import { collectExternalImageUrls, replaceImageUrl } from "../../src/sites/site/settings/validate-settings";
import { fullSettings } from "../support/settings-fixtures";

const OWN = ["https://cdn.platform.test", "platform.test"];

describe("collectExternalImageUrls", () => {
  it("lists every location the spec names, in a fixed order", () => {
    const refs = collectExternalImageUrls(fullSettings(), OWN);
    expect(refs).toEqual([
      { path: "settings.logo_url", url: "https://cdn.example.com/logo.png" },
      { path: "settings.favicon_ico_url", url: "http://legacy.example.com/favicon.ico" },
      { path: "settings.favicon_kit.apple-touch-icon", url: "https://img.example.com/apple.png" },
      { path: "settings.seo.default_og_image", url: "https://img.example.com/og.jpg" },
      { path: "settings.logo.light.sources[0].url", url: "https://img.example.com/logo.svg" },
      { path: "settings.logo.light.sources[1].url", url: "https://img.example.com/logo.webp" },
      { path: "settings.logo.dark.sources[0].url", url: "https://img.example.com/logo-dark.png" },
      { path: "settings.ads.units[0].creative.image_url", url: "https://img.example.com/ads/banner.png" },
      { path: "settings.about_html#img[0].src", url: "https://img.example.com/about.png" },
      { path: "settings.about_html#img[0].srcset[0]", url: "https://img.example.com/a1.png" },
      { path: "settings.about_html#img[0].srcset[1]", url: "https://img.example.com/a2.png" },
    ]);
  });

  it("favicon_png_url and every other field are collected when external", () => {
    const refs = collectExternalImageUrls({ favicon_png_url: "https://x.example/f.png" });
    expect(refs).toEqual([{ path: "settings.favicon_png_url", url: "https://x.example/f.png" }]);
  });

  it("site paths, other schemes, protocol-relative and non-strings never count", () => {
    const refs = collectExternalImageUrls({
      logo_url: "/logo.png",
      favicon_png_url: "data:image/png;base64,AAAA",
      favicon_ico_url: "//cdn.example.com/f.ico",
      seo: { default_og_image: 5 },
      favicon_kit: { a: "ftp://x.example/a.png" },
      about_html: '<img src="/local.png"><img src="//x.example/p.png"><img src="javascript:alert(1)">',
    });
    expect(refs).toEqual([]);
  });

  it("URLs on the platform's own hosts (origins or bare host names) are skipped", () => {
    const settings = {
      logo_url: "https://cdn.platform.test/a.png",
      favicon_png_url: "http://cdn.platform.test/b.png",
      favicon_ico_url: "https://platform.test/c.ico",
      seo: { default_og_image: "http://platform.test/d.png" },
      about_html:
        '<img src="https://cdn.platform.test/e.png"><img src="https://cdn.platform.test.evil.example/f.png">',
    };
    expect(collectExternalImageUrls(settings, OWN)).toEqual([
      { path: "settings.favicon_png_url", url: "http://cdn.platform.test/b.png" },
      { path: "settings.about_html#img[1].src", url: "https://cdn.platform.test.evil.example/f.png" },
    ]);
    expect(collectExternalImageUrls(settings)).toHaveLength(6);
  });

  it("ads creatives of any unit with an image_url are collected; units without one are skipped", () => {
    const refs = collectExternalImageUrls({
      ads: {
        units: [
          { creative: { kind: "text", headline: "x" } },
          { creative: { image_url: "https://ads.example/1.png" } },
          "broken",
          { creative: { image_url: "https://ads.example/3.png" } },
        ],
      },
    });
    expect(refs.map((r) => r.path)).toEqual([
      "settings.ads.units[1].creative.image_url",
      "settings.ads.units[3].creative.image_url",
    ]);
  });

  it("about_html: img tags in document order, any quoting, entities decoded, comments and lookalikes ignored", () => {
    const html = [
      "<!-- <img src='https://hidden.example/c.png'> -->",
      '<a title="<img src=https://fake.example/t.png>">link</a>',
      "<IMG SRC=https://a.example/1.png alt=x>",
      "<img alt='y' src='https://a.example/2.png?a=1&amp;b=2'/>",
      '<imgx src="https://fake.example/x.png">',
      '<img srcset="https://a.example/3.png 480w, https://a.example/4,comma.png 800w,https://a.example/5.png" src="/local.png">',
      '<img src="https://a.example/6.png" src="https://ignored.example/dup.png">',
    ].join("");
    expect(collectExternalImageUrls({ about_html: html })).toEqual([
      { path: "settings.about_html#img[0].src", url: "https://a.example/1.png" },
      { path: "settings.about_html#img[1].src", url: "https://a.example/2.png?a=1&b=2" },
      { path: "settings.about_html#img[2].srcset[0]", url: "https://a.example/3.png" },
      { path: "settings.about_html#img[2].srcset[1]", url: "https://a.example/4,comma.png" },
      { path: "settings.about_html#img[2].srcset[2]", url: "https://a.example/5.png" },
      { path: "settings.about_html#img[3].src", url: "https://a.example/6.png" },
    ]);
  });

  it("does not mutate its input", () => {
    const input = fullSettings();
    const before = structuredClone(input);
    collectExternalImageUrls(input, OWN);
    expect(input).toEqual(before);
  });
});

describe("replaceImageUrl", () => {
  const CDN = "https://cdn.platform.test/media/01JD8X5Q7Z3M4N5P6R7S8T9V0W.png";

  it("swaps every collected location and leaves nothing external behind", () => {
    const input = fullSettings();
    const before = structuredClone(input);
    let doc: Record<string, unknown> = input;
    for (const ref of collectExternalImageUrls(input, OWN))
      doc = replaceImageUrl(doc, ref.path, CDN, ref.url);
    expect(input).toEqual(before);
    expect(collectExternalImageUrls(doc, OWN)).toEqual([]);
    const out = doc as ReturnType<typeof fullSettings> & Record<string, never>;
    expect(doc.logo_url).toBe(CDN);
    expect(doc.favicon_ico_url).toBe(CDN);
    expect((doc.favicon_kit as Record<string, string>)["apple-touch-icon"]).toBe(CDN);
    expect((doc.seo as Record<string, string>).default_og_image).toBe(CDN);
    expect((doc.logo as { light: { sources: { url: string }[] } }).light.sources.map((s) => s.url)).toEqual([
      CDN,
      CDN,
      "/assets/logo.png",
    ]);
    expect(doc.about_html).toBe(`<p>About us</p><img src="${CDN}" srcset="${CDN} 1x, ${CDN} 2x" alt="">`);
    expect(out.favicon_png_url).toBe("/favicon.png");
  });

  it("returns a new document and never mutates the input", () => {
    const input = {
      logo_url: "https://x.example/a.png",
      seo: { default_og_image: "https://x.example/b.png" },
    };
    const out = replaceImageUrl(input, "settings.seo.default_og_image", CDN);
    expect(out).toEqual({ logo_url: "https://x.example/a.png", seo: { default_og_image: CDN } });
    expect(input.seo.default_og_image).toBe("https://x.example/b.png");
    expect(out).not.toBe(input);
  });

  it("with an expected URL, swaps only when the path still holds it", () => {
    const input = { logo_url: "https://x.example/new.png" };
    expect(replaceImageUrl(input, "settings.logo_url", CDN, "https://x.example/old.png")).toEqual(input);
    expect(replaceImageUrl(input, "settings.logo_url", CDN, "https://x.example/new.png")).toEqual({
      logo_url: CDN,
    });
  });

  it("a path that no longer resolves leaves the copy unchanged", () => {
    const input = { logo: { version: 1, light: { svg_markup: "<svg/>" } }, about_html: "<p>no images</p>" };
    for (const path of [
      "settings.logo.light.sources[0].url",
      "settings.logo.dark.sources[0].url",
      "settings.ads.units[3].creative.image_url",
      "settings.about_html#img[0].src",
      "settings.logo_url",
    ]) {
      expect(replaceImageUrl(input, path, CDN)).toEqual(input);
    }
  });

  it("about_html: rewrites only the addressed attribute, escaping the new URL", () => {
    const html =
      "<p>x</p><img alt=a src='https://a.example/1.png'><img src=https://a.example/2.png srcset=\"https://a.example/3.png 1x, https://a.example/4.png 2x\">";
    const swap = (path: string, url: string, expected?: string) =>
      replaceImageUrl({ about_html: html }, path, url, expected);
    expect(swap("settings.about_html#img[0].src", 'https://cdn.test/q?a=1&b="2"')).toEqual({
      about_html:
        '<p>x</p><img alt=a src="https://cdn.test/q?a=1&amp;b=&quot;2&quot;"><img src=https://a.example/2.png srcset="https://a.example/3.png 1x, https://a.example/4.png 2x">',
    });
    expect(swap("settings.about_html#img[1].srcset[1]", CDN)).toEqual({
      about_html: `<p>x</p><img alt=a src='https://a.example/1.png'><img src=https://a.example/2.png srcset="https://a.example/3.png 1x, ${CDN} 2x">`,
    });
    expect(swap("settings.about_html#img[1].src", CDN)).toEqual({
      about_html: `<p>x</p><img alt=a src='https://a.example/1.png'><img src="${CDN}" srcset="https://a.example/3.png 1x, https://a.example/4.png 2x">`,
    });
    expect(swap("settings.about_html#img[0].src", CDN, "https://other.example/x.png")).toEqual({
      about_html: html,
    });
    expect(swap("settings.about_html#img[1].srcset[0]", CDN, "https://other.example/x.png")).toEqual({
      about_html: html,
    });
  });

  it("a malformed path throws", () => {
    for (const path of [
      "logo_url",
      "settings",
      "settings.logo_url#img[0].src[1]",
      "settings.about_html#img[0].srcset",
      "settings..x",
      "settings.a#b",
    ]) {
      expect(() => replaceImageUrl({}, path, CDN)).toThrow(/invalid image path/);
    }
  });
});
