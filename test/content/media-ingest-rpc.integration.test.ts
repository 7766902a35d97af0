import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { call, content, countRows, createPost, makeSite, tenant, testEnv } from "../support/content-helpers";

describe("ingestImage (RPC from sites)", () => {
  it("ok: stores the bytes in R2 under the site, records a ready media row, answers the CDN URL", async () => {
    const site = await makeSite();
    const result = await content.ingestImage({
      site_id: site.id,
      url: "https://img.test/ok.png",
      purpose: "logo",
    });
    expect(result.status).toBe("ready");
    if (result.status !== "ready") return;
    const key = `sites/${site.id}/${result.media_id}.png`;
    expect(result.url).toBe(`${testEnv.MEDIA_PUBLIC_BASE}/${key}`);
    const row = await (await contentDbOf(site.id))
      .prepare("SELECT site_id, status, content_type, purpose, source_url FROM media WHERE id = ?")
      .bind(result.media_id)
      .first();
    expect(row).toEqual({
      site_id: site.id,
      status: "ready",
      content_type: "image/png",
      purpose: "logo",
      source_url: "https://img.test/ok.png",
    });
    const object = await testEnv.MEDIA.get(key);
    expect(object).not.toBeNull();
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);

    const served = await call("GET", `/media/${key}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toBe("public, max-age=86400, s-maxage=31536000");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
  });

  it("transient failures answer pending; definitive ones rejected", async () => {
    const site = await makeSite();
    const pending = await content.ingestImage({
      site_id: site.id,
      url: "https://img.test/error.png",
      purpose: "logo",
    });
    expect(pending.status).toBe("pending");
    for (const url of [
      "https://img.test/missing.png",
      "http://private.test/x.png",
      "https://img.test/evil.svg",
      "ftp://img.test/ok.png",
    ]) {
      const res = await content.ingestImage({ site_id: site.id, url, purpose: "logo" });
      expect(res.status, url).toBe("rejected");
      if (res.status === "rejected") expect(res.definitive).toBe(true);
    }
    expect(await countRows("media", site.id)).toBe(0);
  });

  it("a site content has not synced yet is pending, never a definitive refusal", async () => {
    const res = await content.ingestImage({
      site_id: newId(),
      url: "https://img.test/ok.png",
      purpose: "logo",
    });
    expect(res).toEqual({ status: "pending", reason: "site_not_synced" });
  });

  it("an ingested image can be a post's cover, and image blocks render its URL", async () => {
    const t = await tenant();
    const img = await content.ingestImage({
      site_id: t.site.id,
      url: "https://img.test/ok.png",
      purpose: "post",
    });
    if (img.status !== "ready") throw new Error("ingest failed");
    const post = await createPost(t.ck, {
      title: "With image",
      status: "published",
      featured_image_id: img.media_id,
      blocks_json: { blocks: [{ type: "image", data: { media_id: img.media_id, caption: "c" } }] },
    });
    const detail = (await (await call("GET", `/v1/posts/${post.id}`, { key: t.ck })).json()) as {
      featured_image_url: string;
      content_html: string;
    };
    expect(detail.featured_image_url).toBe(img.url);
    expect(detail.content_html).toContain(img.url);
  });

  it("GET /media/{key} is 404 for unknown or malformed keys", async () => {
    expect((await call("GET", `/media/sites/${newId()}/${newId()}.png`)).status).toBe(404);
    expect((await call("GET", "/media/../../etc/passwd")).status).toBe(404);
  });
});
