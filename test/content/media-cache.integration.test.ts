/**
 * Public media URLs and caches: the cache policy they are served with, and the purge of every URL of an
 * asset when it is deleted (through the effects outbox; recorded in `outbound_effects` under DEV_OUTBOX).
 */
import { describe, expect, it } from "vitest";
import { contentDbOf, otherContentDbs } from "../support/content-groups";
import { call, countRows, testEnv } from "../support/content-helpers";
import { mediaTenant, uploadFile, waitUntilProcessed } from "../support/media-helpers";
import { pngImage } from "../support/png";

function path(url: string): string {
  return `/media/${url.slice(`${testEnv.MEDIA_PUBLIC_BASE}/`.length)}`;
}

/** The purges recorded for the asset, in its site's group; none may be in another group. */
async function purgesOf(siteId: string, mediaId: string): Promise<string[][]> {
  for (const db of await otherContentDbs(siteId)) {
    const stray = await db
      .prepare("SELECT count(*) AS n FROM outbound_effects WHERE subject_id = ?")
      .bind(mediaId)
      .first<{ n: number }>();
    expect(stray!.n).toBe(0);
  }
  const { results } = await (await contentDbOf(siteId))
    .prepare(
      "SELECT payload_json FROM outbound_effects WHERE kind = 'cache_purge' AND subject_id = ? ORDER BY id",
    )
    .bind(mediaId)
    .all<{ payload_json: string }>();
  return results.map((r) => (JSON.parse(r.payload_json) as { urls: string[] }).urls);
}

describe("GET /media/{key}: cache policy", () => {
  it("originals and variants: public, a day in browsers, a year in shared caches, with an ETag and 304", async () => {
    const t = await mediaTenant();
    const asset = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, await pngImage(700, 400))).id);
    expect(asset.variants.map((v) => v.name)).toEqual([
      "original",
      "320w-webp",
      "320w-png",
      "640w-webp",
      "640w-png",
    ]);
    for (const v of asset.variants) {
      const res = await call("GET", path(v.url));
      expect(res.status, v.name).toBe(200);
      expect(res.headers.get("cache-control"), v.name).toBe("public, max-age=86400, s-maxage=31536000");
      const etag = res.headers.get("etag");
      expect(etag, v.name).toMatch(/^"[^"]+"$/);
      await res.arrayBuffer();
      const again = await call("GET", path(v.url), { headers: { "if-none-match": etag! } });
      expect(again.status, v.name).toBe(304);
      expect(again.headers.get("etag"), v.name).toBe(etag);
      expect(await again.text()).toBe("");
      const stale = await call("GET", path(v.url), { headers: { "if-none-match": '"other"' } });
      expect(stale.status, v.name).toBe(200);
    }
  });
});

describe("DELETE /v1/media/{id}: the deletion reaches caches", () => {
  it("the original and every variant answer 404 at once, and all their URLs are purged", async () => {
    const t = await mediaTenant();
    const asset = await waitUntilProcessed(t.ck, (await uploadFile(t.ck, await pngImage(1600, 1200))).id);
    expect(asset.variants).toHaveLength(7);
    for (const v of asset.variants) expect((await call("GET", path(v.url))).status, v.name).toBe(200);

    expect((await call("DELETE", `/v1/media/${asset.id}`, { key: t.ck })).status).toBe(204);

    for (const v of asset.variants) {
      const res = await call("GET", path(v.url));
      expect(res.status, v.name).toBe(404);
      // A revalidating browser or CDN gets the 404 too, never a 304 for bytes that are gone.
      const etag = (await testEnv.MEDIA.head(path(v.url).slice("/media/".length)))!.httpEtag;
      expect((await call("GET", path(v.url), { headers: { "if-none-match": etag } })).status).toBe(404);
    }
    const purges = await purgesOf(t.site.id, asset.id);
    expect(purges).toHaveLength(1);
    expect(purges[0]).toEqual(expect.arrayContaining(asset.variants.map((v) => v.url)));
    // Delivered, so the outbox is empty again.
    expect(await countRows("post_effects", t.site.id)).toBe(0);
  });

  it("an asset deleted before its variants exist still has every variant URL it could get purged", async () => {
    const t = await mediaTenant();
    const uploaded = await uploadFile(t.ck, await pngImage(1600, 1200));
    expect((await call("DELETE", `/v1/media/${uploaded.id}`, { key: t.ck })).status).toBe(204);
    const base = `${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${uploaded.id}`;
    const [urls] = await purgesOf(t.site.id, uploaded.id);
    expect([...urls!].sort()).toEqual(
      [uploaded.url, ...[320, 640, 1280].flatMap((w) => [`${base}/${w}.webp`, `${base}/${w}.png`])].sort(),
    );
  });

  it("another site's id and a second delete purge nothing", async () => {
    const a = await mediaTenant();
    const b = await mediaTenant();
    const theirs = await uploadFile(b.ck, await pngImage(400, 300));
    expect((await call("DELETE", `/v1/media/${theirs.id}`, { key: a.ck })).status).toBe(404);
    expect(await purgesOf(b.site.id, theirs.id)).toEqual([]);
    expect((await call("GET", path(theirs.url))).status).toBe(200);
    expect((await call("DELETE", `/v1/media/${theirs.id}`, { key: b.ck })).status).toBe(204);
    expect((await call("DELETE", `/v1/media/${theirs.id}`, { key: b.ck })).status).toBe(404);
    expect(await purgesOf(b.site.id, theirs.id)).toHaveLength(1);
  });

  it("concurrent deletes of one asset: one 204, one purge", async () => {
    const t = await mediaTenant();
    const asset = await uploadFile(t.ck, await pngImage(400, 300));
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () =>
        call("DELETE", `/v1/media/${asset.id}`, { key: t.ck }).then((r) => r.status),
      ),
    );
    expect(statuses.sort()).toEqual([204, 404, 404, 404, 404]);
    expect(await purgesOf(t.site.id, asset.id)).toHaveLength(1);
  });
});
