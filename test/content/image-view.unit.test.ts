/**
 * Issue 22 §1: a media asset as a public page shows it. `featured_image` (imageView) from the asset's
 * ready variants (the original while they are pending), and content_html's images with srcset, sizes,
 * width/height, a WebP <source> first where WebP variants exist, and loading="lazy" after the first.
 */
import { describe, expect, it } from "vitest";
import { imageView, srcsetOf, webpSrcset } from "../../src/content/media/image-view";
import type { MediaImageRow } from "../../src/content/media/media-image";
import { renderBlocks } from "../../src/content/posts/render/render-blocks";
import { findUnsafeHtml } from "../support/html-safety";

const BASE = "https://media.example.com";
const variant = (w: number, ext: string) => ({ name: `${w}w-${ext}`, url: `http://old.test/${w}.${ext}` });

function png(status: MediaImageRow["status"], overrides: Partial<MediaImageRow> = {}): MediaImageRow {
  return {
    id: "M1",
    site_id: "S1",
    r2_key: "sites/S1/M1.png",
    content_type: "image/png",
    status,
    width: status === "processing" ? null : 1600,
    height: status === "processing" ? null : 900,
    variants_json: JSON.stringify(
      status === "ready"
        ? [
            { name: "original", url: "x" },
            variant(320, "webp"),
            variant(320, "png"),
            variant(640, "webp"),
            variant(640, "png"),
            variant(1280, "webp"),
            variant(1280, "png"),
          ]
        : [],
    ),
    ...overrides,
  };
}

describe("imageView", () => {
  it("a ready asset: the original and every variant on the configured base (never the stored URLs), narrowest first", () => {
    const view = imageView(BASE, png("ready"), "Alt");
    expect(view).toMatchObject({
      id: "M1",
      url: `${BASE}/sites/S1/M1.png`,
      width: 1600,
      height: 900,
      alt: "Alt",
    });
    expect(view.variants.map((v) => `${v.width}:${v.format}`)).toEqual([
      "320:image/webp",
      "320:image/png",
      "640:image/webp",
      "640:image/png",
      "1280:image/webp",
      "1280:image/png",
      "1600:image/png",
    ]);
    expect(view.variants.every((v) => v.url.startsWith(`${BASE}/sites/S1/M1`))).toBe(true);
    expect(view.variants[0]!.url).toBe(`${BASE}/sites/S1/M1/320.webp`);
    // The <img> srcset: the original's format and the original itself.
    expect(view.srcset).toBe(
      `${BASE}/sites/S1/M1/320.png 320w, ${BASE}/sites/S1/M1/640.png 640w, ${BASE}/sites/S1/M1/1280.png 1280w, ${BASE}/sites/S1/M1.png 1600w`,
    );
    expect(webpSrcset(view)).toBe(
      `${BASE}/sites/S1/M1/320.webp 320w, ${BASE}/sites/S1/M1/640.webp 640w, ${BASE}/sites/S1/M1/1280.webp 1280w`,
    );
  });

  it("while processing: the original only, its bare URL as srcset (width unknown), no WebP source", () => {
    const view = imageView(BASE, png("processing"), "");
    expect(view.variants).toEqual([{ width: null, url: `${BASE}/sites/S1/M1.png`, format: "image/png" }]);
    expect(view.srcset).toBe(`${BASE}/sites/S1/M1.png`);
    expect(webpSrcset(view)).toBeNull();
  });

  it("a failed asset shows its original; stored entries that are not variants are ignored", () => {
    const failed = imageView(BASE, png("failed", { variants_json: "not json" }), "");
    expect(failed.variants).toHaveLength(1);
    const odd = png("ready", { variants_json: JSON.stringify([{ name: "../x" }, { name: "320w-exe" }, 7]) });
    expect(imageView(BASE, odd, "").variants).toHaveLength(1);
  });

  it("a WebP or GIF original: the <img> srcset is WebP, no separate <source>", () => {
    const gif = png("ready", {
      content_type: "image/gif",
      r2_key: "sites/S1/M1.gif",
      variants_json: JSON.stringify([variant(320, "webp")]),
    });
    const view = imageView(BASE, gif, "");
    expect(view.srcset).toBe(`${BASE}/sites/S1/M1/320.webp 320w, ${BASE}/sites/S1/M1.gif 1600w`);
    expect(webpSrcset(view)).toBeNull();
  });

  it("srcsetOf of nothing sized is the first URL", () => {
    expect(srcsetOf([{ width: null, url: "u", format: "image/svg+xml" }])).toBe("u");
  });
});

describe("content_html images from media views", () => {
  const doc = (n: number) => ({
    blocks: Array.from({ length: n }, (_, i) => ({
      type: "image",
      data: { media_id: `M${i}`, caption: `Cap ${i}` },
    })),
  });

  it("a <picture> with the WebP source first, srcset/sizes/width/height on the img; lazy after the first image only", () => {
    const html = renderBlocks(doc(2), { mediaImage: (id) => imageView(BASE, png("ready", { id }), "") });
    const first =
      `<figure><picture><source type="image/webp" srcset="${BASE}/sites/S1/M0/320.webp 320w, ${BASE}/sites/S1/M0/640.webp 640w, ${BASE}/sites/S1/M0/1280.webp 1280w" sizes="(max-width: 1600px) 100vw, 1600px">` +
      `<img src="${BASE}/sites/S1/M1.png" alt="Cap 0" srcset="${BASE}/sites/S1/M0/320.png 320w, ${BASE}/sites/S1/M0/640.png 640w, ${BASE}/sites/S1/M0/1280.png 1280w, ${BASE}/sites/S1/M1.png 1600w" sizes="(max-width: 1600px) 100vw, 1600px" width="1600" height="900">` +
      "</picture><figcaption>Cap 0</figcaption></figure>";
    expect(html.startsWith(first)).toBe(true);
    const imgs = [...html.matchAll(/<img [^>]*>/g)].map((m) => m[0]);
    expect(imgs).toHaveLength(2);
    expect(imgs[0]).not.toContain("loading=");
    expect(imgs[1]).toContain('loading="lazy"');
    expect(findUnsafeHtml(html)).toEqual([]);
  });

  it("a pending asset: a plain img of the original (no picture), the block's own size wins", () => {
    const html = renderBlocks(
      { blocks: [{ type: "image", data: { media_id: "M1", width: 20, height: 10 } }] },
      { mediaImage: () => imageView(BASE, png("processing"), "") },
    );
    expect(html).toBe(
      `<figure><img src="${BASE}/sites/S1/M1.png" alt="" srcset="${BASE}/sites/S1/M1.png" sizes="(max-width: 20px) 100vw, 20px" width="20" height="10"></figure>`,
    );
  });

  it("a view whose URLs are not safe media URLs is not used (the block falls back to its own URL, or nothing)", () => {
    const hostile = { ...imageView(BASE, png("ready"), ""), url: "javascript:alert(1)" };
    expect(
      renderBlocks({ blocks: [{ type: "image", data: { media_id: "M1" } }] }, { mediaImage: () => hostile }),
    ).toBe("");
    const comma = imageView("https://a.test/x,y", png("ready"), "");
    const html = renderBlocks(
      { blocks: [{ type: "image", data: { media_id: "M1", url: "https://ok.test/i.png" } }] },
      { mediaImage: () => comma },
    );
    expect(html).toBe('<figure><img src="https://ok.test/i.png" alt=""></figure>');
    expect(findUnsafeHtml(html)).toEqual([]);
  });
});
