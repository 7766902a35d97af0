/**
 * The media-variants consumer on the real local Images binding (sharp), R2 and Queues: uploads go through
 * the worker and the real queue; attempts and redeliveries are driven with a message batch.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, testEnv } from "../support/content-helpers";
import {
  type Asset,
  decode,
  deliverVariants,
  encodeAs,
  getAsset,
  mediaTenant,
  uploadFile,
  variantKeys,
  waitUntilProcessed,
} from "../support/media-helpers";
import { pngHeader, pngImage, pngWithCorruptPixels } from "../support/png";

function keyOf(url: string): string {
  return url.slice(`${testEnv.MEDIA_PUBLIC_BASE}/`.length);
}

/** Every variant but the original: its R2 object decodes as its declared format and size. */
async function expectVariantsDecodeAsDeclared(asset: Asset) {
  for (const v of asset.variants.filter((v) => v.name !== "original")) {
    const object = await testEnv.MEDIA.get(keyOf(v.url));
    expect(object, v.name).not.toBeNull();
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(await decode(bytes), v.name).toMatchObject({
      format: v.content_type,
      width: v.width,
      height: v.height,
    });
    expect(v.size_bytes, v.name).toBe(bytes.byteLength);
    expect(object!.httpMetadata?.contentType, v.name).toBe(v.content_type);
  }
}

/** An asset recorded as `processing` with its original in R2, as an upload leaves it (no queue message). */
async function processingAsset(siteId: string, bytes: Uint8Array, contentType = "image/png") {
  const id = newId();
  const key = `sites/${siteId}/${id}.png`;
  await testEnv.MEDIA.put(key, bytes, { httpMetadata: { contentType } });
  await (await contentDbOf(siteId))
    .prepare(
      `INSERT INTO media (id, site_id, r2_key, content_type, size_bytes, status, created_at)
     VALUES (?, ?, ?, ?, ?, 'processing', ?)`,
    )
    .bind(id, siteId, key, contentType, bytes.byteLength, new Date().toISOString())
    .run();
  return { id, body: { media_id: id, site_id: siteId } };
}

describe("media-variants: generated with the Images binding", () => {
  it("a 1600x1200 PNG gets 320, 640 and 1280 px variants in WebP and PNG, stored in R2 at their declared sizes", async () => {
    const t = await mediaTenant();
    const uploaded = await uploadFile(t.ck, await pngImage(1600, 1200));
    expect(uploaded).toMatchObject({ status: "processing", width: null, height: null, failure_reason: null });
    const asset = await waitUntilProcessed(t.ck, uploaded.id);
    expect(asset).toMatchObject({ status: "ready", failure_reason: null, width: 1600, height: 1200 });
    expect(asset.variants.map((v) => v.name)).toEqual([
      "original",
      "320w-webp",
      "320w-png",
      "640w-webp",
      "640w-png",
      "1280w-webp",
      "1280w-png",
    ]);
    expect(asset.variants[0]).toEqual({
      name: "original",
      url: uploaded.url,
      width: 1600,
      height: 1200,
      content_type: "image/png",
      size_bytes: uploaded.size_bytes,
    });
    for (const v of asset.variants.slice(1)) {
      const [width, ext] = v.name.replace("w", "").split("-") as [string, string];
      expect(v.url).toBe(`${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${asset.id}/${width}.${ext}`);
      expect(v.width).toBe(Number(width));
      expect(v.height).toBe((Number(width) * 3) / 4);
      expect(v.content_type).toBe(ext === "webp" ? "image/webp" : "image/png");
    }
    await expectVariantsDecodeAsDeclared(asset);
    expect(await variantKeys(t.site.id, asset.id)).toHaveLength(6);
    const served = await call("GET", `/media/${keyOf(asset.variants[1]!.url)}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(await decode(new Uint8Array(await served.arrayBuffer()))).toMatchObject({
      width: 320,
      height: 240,
    });
  });

  it("an 800x600 JPEG gets only the widths below its own (320, 640), in WebP and JPEG", async () => {
    const t = await mediaTenant();
    const jpeg = await encodeAs(await pngImage(800, 600), "image/jpeg");
    const uploaded = await uploadFile(t.ck, jpeg, "a.jpg");
    const asset = await waitUntilProcessed(t.ck, uploaded.id);
    expect(asset).toMatchObject({ status: "ready", width: 800, height: 600 });
    expect(asset.variants.map((v) => [v.name, v.width, v.height, v.content_type])).toEqual([
      ["original", 800, 600, "image/jpeg"],
      ["320w-webp", 320, 240, "image/webp"],
      ["320w-jpg", 320, 240, "image/jpeg"],
      ["640w-webp", 640, 480, "image/webp"],
      ["640w-jpg", 640, 480, "image/jpeg"],
    ]);
    await expectVariantsDecodeAsDeclared(asset);
  });

  it("a WebP original gets WebP variants only", async () => {
    const t = await mediaTenant();
    const webp = await encodeAs(await pngImage(700, 350), "image/webp");
    const asset = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, webp, "a.webp")).id);
    expect(asset).toMatchObject({ status: "ready", width: 700, height: 350 });
    expect(asset.variants.map((v) => [v.name, v.width, v.height])).toEqual([
      ["original", 700, 350],
      ["320w-webp", 320, 160],
      ["640w-webp", 640, 320],
    ]);
    await expectVariantsDecodeAsDeclared(asset);
  });

  it("an image 320 px wide (not wider than the smallest variant) keeps the original as its only variant", async () => {
    const t = await mediaTenant();
    const asset = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, await pngImage(320, 200))).id);
    expect(asset).toMatchObject({ status: "ready", width: 320, height: 200 });
    expect(asset.variants.map((v) => v.name)).toEqual(["original"]);
    expect(await variantKeys(t.site.id, asset.id)).toEqual([]);
  });

  it("an SVG is not rasterized: ready, the original its only variant, the size from width/height or viewBox", async () => {
    const t = await mediaTenant();
    const sized =
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="10" height="10"/></svg>';
    const boxed =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 24"><rect width="10" height="10"/></svg>';
    const bare = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>';
    const results: Asset[] = [];
    for (const svg of [sized, boxed, bare]) {
      results.push(await waitUntilProcessed(t.ck, (await uploadFile(t.ck, svg, "a.svg")).id));
    }
    expect(results.map((a) => [a.status, a.width, a.height, a.variants.map((v) => v.name)])).toEqual([
      ["ready", 120, 80, ["original"]],
      ["ready", 48, 24, ["original"]],
      ["ready", null, null, ["original"]],
    ]);
    expect(results[0]!.variants[0]).toMatchObject({ content_type: "image/svg+xml", width: 120, height: 80 });
  });

  it("an undecodable image (PNG signature, broken header) ends failed: undecodable, with no variants", async () => {
    const t = await mediaTenant();
    const broken = new Uint8Array(512);
    broken.set(pngHeader(1600, 1200).subarray(0, 8));
    const asset = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, broken)).id);
    expect(asset).toMatchObject({
      status: "failed",
      failure_reason: "undecodable",
      width: null,
      height: null,
      variants: [],
    });
    expect(await variantKeys(t.site.id, asset.id)).toEqual([]);
    // The original is still the owner's file and stays served.
    expect((await call("GET", `/media/${keyOf(asset.url)}`)).status).toBe(200);
  });

  it("an image above 12,000 px a side is failed: too_large, with its size, and never sent to the binding", async () => {
    const t = await mediaTenant();
    const { id, body } = await processingAsset(t.site.id, pngHeader(13_000, 100));
    expect((await deliverVariants([{ body }])).explicitAcks).toEqual(["m0"]);
    expect(await getAsset(t.ck, id)).toMatchObject({
      status: "failed",
      failure_reason: "too_large",
      width: 13_000,
      height: 100,
      variants: [],
    });
  });

  it("a binding failure is retried; on the 3rd attempt the asset is failed: processing_failed", async () => {
    const t = await mediaTenant();
    const { id, body } = await processingAsset(t.site.id, pngWithCorruptPixels(800, 600));
    const first = await deliverVariants([{ body, attempts: 1 }]);
    expect(first.retryMessages).toEqual([{ msgId: "m0" }]);
    expect((await getAsset(t.ck, id)).status).toBe("processing");
    const second = await deliverVariants([{ body, attempts: 2 }]);
    expect(second.retryMessages).toEqual([{ msgId: "m0" }]);
    expect((await getAsset(t.ck, id)).status).toBe("processing");
    const third = await deliverVariants([{ body, attempts: 3 }]);
    expect(third.retryMessages).toEqual([]);
    expect(third.explicitAcks).toEqual(["m0"]);
    expect(await getAsset(t.ck, id)).toMatchObject({
      status: "failed",
      failure_reason: "processing_failed",
      width: 800,
      height: 600,
      variants: [],
    });
  });
});

describe("media-variants: idempotent on redelivery", () => {
  it("a message delivered again after the asset is ready changes nothing", async () => {
    const t = await mediaTenant();
    const ready = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, await pngImage(1000, 500))).id);
    expect(ready.variants).toHaveLength(5);
    const keys = await variantKeys(t.site.id, ready.id);
    const body = { media_id: ready.id, site_id: t.site.id };
    const again = await deliverVariants([{ body }, { body }]);
    expect(again.explicitAcks).toEqual(["m0", "m1"]);
    expect(await getAsset(t.ck, ready.id)).toEqual(ready);
    expect(await variantKeys(t.site.id, ready.id)).toEqual(keys);
  });

  it("an interrupted run (variants in R2, asset still processing) processed twice leaves the same variants, no duplicates", async () => {
    const t = await mediaTenant();
    const ready = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, await pngImage(1000, 500))).id);
    const keys = await variantKeys(t.site.id, ready.id);
    expect(keys).toEqual(
      ["320.png", "320.webp", "640.png", "640.webp"].map((f) => `sites/${t.site.id}/${ready.id}/${f}`),
    );
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE media SET status = 'processing', variants_json = '[]', width = NULL WHERE id = ?")
      .bind(ready.id)
      .run();
    const body = { media_id: ready.id, site_id: t.site.id };
    await deliverVariants([{ body }]);
    await deliverVariants([{ body }]);
    const after = await getAsset(t.ck, ready.id);
    expect(after).toEqual(ready);
    expect(await variantKeys(t.site.id, ready.id)).toEqual(keys);
    await expectVariantsDecodeAsDeclared(after);
  });

  it("an asset deleted while its message waits stays deleted, and other sites' or unknown ids are acked", async () => {
    const t = await mediaTenant();
    const other = await mediaTenant();
    const { id, body } = await processingAsset(t.site.id, await pngImage(700, 500));
    expect((await call("DELETE", `/v1/media/${id}`, { key: t.ck })).status).toBe(204);
    const result = await deliverVariants([
      { body },
      { body: { media_id: id, site_id: other.site.id } },
      { body: { media_id: newId(), site_id: t.site.id } },
      { body: "not an object" },
    ]);
    expect(result.explicitAcks).toEqual(["m0", "m1", "m2", "m3"]);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, variants_json FROM media WHERE id = ?")
      .bind(id)
      .first<{ status: string; variants_json: string }>();
    expect(row).toEqual({ status: "deleted", variants_json: "[]" });
    expect(await variantKeys(t.site.id, id)).toEqual([]);
  });
});
