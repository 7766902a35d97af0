import { describe, expect, it } from "vitest";
import { call, createKey, createPost, makeSite, ORIGIN, seedMedia } from "../support/content-helpers";

async function mediaTenant() {
  const site = await makeSite();
  const ck = await createKey(site, { scopes: ["posts:write", "media:read"] });
  const pk = await createKey(site, { kind: "public", scopes: ["media:read"] });
  return { site, ck: ck.key, pk: pk.key };
}

async function listed(key: string, origin?: string): Promise<string[]> {
  const res = await call("GET", "/v1/media", { key, origin });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id).sort();
}

async function got(key: string, id: string, origin?: string): Promise<number> {
  return (await call("GET", `/v1/media/${id}`, { key, origin })).status;
}

describe("public reads of media (pk_) show only what public content uses", () => {
  it("a draft's cover is invisible to pk_, visible once the post is published; ck_ sees everything", async () => {
    const t = await mediaTenant();
    const cover = await seedMedia(t.site.id);
    const loose = await seedMedia(t.site.id);
    const post = await createPost(t.ck, { title: "Embargoed", featured_image_id: cover });
    expect(await listed(t.pk, ORIGIN)).toEqual([]);
    expect(await got(t.pk, cover, ORIGIN)).toBe(404);
    expect(await listed(t.ck)).toEqual([cover, loose].sort());
    expect(await got(t.ck, cover)).toBe(200);

    const res = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { status: "published" } });
    expect(res.status).toBe(200);
    expect(await listed(t.pk, ORIGIN)).toEqual([cover]);
    expect(await got(t.pk, cover, ORIGIN)).toBe(200);
    expect(await got(t.pk, loose, ORIGIN)).toBe(404);

    // Unpublished again, or the cover replaced: gone from public reads at once.
    await call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck });
    expect(await got(t.pk, cover, ORIGIN)).toBe(404);
  });

  it("image blocks count by media_id; scheduled, restricted and replaced references do not", async () => {
    const t = await mediaTenant();
    const inline = await seedMedia(t.site.id);
    const future = await seedMedia(t.site.id);
    const secret = await seedMedia(t.site.id);
    const old = await seedMedia(t.site.id);
    const fresh = await seedMedia(t.site.id);
    const image = (id: string) => ({ blocks: [{ type: "image", data: { media_id: id, url: "x" } }] });
    await createPost(t.ck, { title: "Inline", status: "published", blocks_json: image(inline) });
    await createPost(t.ck, {
      title: "Later",
      status: "published",
      published_at: new Date(Date.now() + 86_400_000).toISOString(),
      featured_image_id: future,
    });
    await createPost(t.ck, {
      title: "Members",
      status: "published",
      access: "restricted",
      featured_image_id: secret,
    });
    const swap = await createPost(t.ck, { title: "Swap", status: "published", featured_image_id: old });
    await call("PATCH", `/v1/posts/${swap.id}`, { key: t.ck, body: { featured_image_id: fresh } });
    expect(await listed(t.pk, ORIGIN)).toEqual([inline, fresh].sort());
    for (const hidden of [future, secret, old]) expect(await got(t.pk, hidden, ORIGIN)).toBe(404);
  });

  it("another site's public post using the id does not reveal it", async () => {
    const t = await mediaTenant();
    const other = await mediaTenant();
    const asset = await seedMedia(t.site.id);
    await createPost(t.ck, { title: "Draft", featured_image_id: asset });
    // The other site cannot even reference it (not its media); its pk_ gets 404 like a missing id.
    expect(await got(other.pk, asset, ORIGIN)).toBe(404);
    expect(await got(t.pk, asset, ORIGIN)).toBe(404);
  });
});
