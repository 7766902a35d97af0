import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { call, createKey, createPost, ORIGIN, seedMedia, tenant, testEnv } from "../support/content-helpers";

describe("tenant walls: site A's key against site B's posts", () => {
  it("every post route answers B's ids and slugs exactly like missing ones, and changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const full = await createKey(a.site, {
      scopes: ["posts:write", "posts:read", "seo:read", "seo:write"],
    });
    const bPublished = await createPost(b.ck, {
      title: "B published",
      slug: "b-published",
      status: "published",
    });
    const bDraft = await createPost(b.ck, { title: "B draft", slug: "b-draft" });
    const routes: [string, (ref: string) => string, unknown][] = [
      ["GET", (r) => `/v1/posts/${r}`, undefined],
      ["PATCH", (r) => `/v1/posts/${r}`, { title: "hijack" }],
      ["POST", (r) => `/v1/posts/${r}/unpublish`, undefined],
      ["GET", (r) => `/v1/posts/${r}/source`, undefined],
      ["GET", (r) => `/v1/posts/${r}/seo`, undefined],
      ["PATCH", (r) => `/v1/posts/${r}/seo`, { meta_title: "hijack" }],
    ];
    for (const [method, path, body] of routes) {
      const missingId = await call(method, path(newId()), { key: full.key, body });
      const missingSlug = await call(method, path("no-such-post"), { key: full.key, body });
      expect(missingId.status).toBe(404);
      const missingIdBody = await missingId.text();
      expect(await missingSlug.text()).toBe(missingIdBody);
      for (const ref of [bPublished.id, bPublished.slug, bDraft.id, bDraft.slug]) {
        const res = await call(method, path(ref), { key: full.key, body });
        expect(res.status, `${method} ${path(ref)}`).toBe(404);
        expect(await res.text()).toBe(missingIdBody);
      }
    }
    const stillB = (await (await call("GET", `/v1/posts/${bPublished.id}/source`, { key: b.ck })).json()) as {
      title: string;
      status: string;
    };
    expect(stillB).toMatchObject({ title: "B published", status: "published" });
  });

  it("a soft-deleted post answers exactly like a missing one on every route, and is in no listing", async () => {
    const t = await tenant();
    const gone = await createPost(t.ck, { title: "Gone", slug: "gone", status: "published" });
    await testEnv.DB.prepare("UPDATE posts SET status = 'deleted' WHERE id = ?").bind(gone.id).run();
    const routes: [string, string, unknown][] = [
      ["GET", "", undefined],
      ["PATCH", "", { title: "back" }],
      ["POST", "/unpublish", undefined],
      ["GET", "/source", undefined],
      ["GET", "/seo", undefined],
      ["PATCH", "/seo", { meta_title: "x" }],
    ];
    for (const [method, suffix, body] of routes) {
      const missing = await call(method, `/v1/posts/${newId()}${suffix}`, { key: t.ck, body });
      const missingBody = await missing.text();
      for (const ref of [gone.id, gone.slug]) {
        const res = await call(method, `/v1/posts/${ref}${suffix}`, { key: t.ck, body });
        expect(res.status, `${method} ${ref}${suffix}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
    const pub = await call("GET", `/v1/posts/${gone.id}`, { key: t.pk, origin: ORIGIN });
    expect(pub.status).toBe(404);
    const listed = (await (
      await call("GET", "/v1/posts?status=draft,scheduled,published,archived", { key: t.ck })
    ).json()) as { items: unknown[] };
    expect(listed.items).toEqual([]);
    const row = await testEnv.DB.prepare("SELECT status, title FROM posts WHERE id = ?")
      .bind(gone.id)
      .first<{ status: string; title: string }>();
    expect(row).toEqual({ status: "deleted", title: "Gone" });
  });

  it("B's media never resolves in A's posts: image blocks and covers", async () => {
    const a = await tenant();
    const b = await tenant();
    const mediaB = await seedMedia(b.site.id);
    const cover = await call("POST", "/v1/posts", {
      key: a.ck,
      body: { title: "Cover", featured_image_id: mediaB },
    });
    const missing = await call("POST", "/v1/posts", {
      key: a.ck,
      body: { title: "Cover", featured_image_id: newId() },
    });
    expect(cover.status).toBe(422);
    expect(await cover.text()).toBe(await missing.text());
    const post = await createPost(a.ck, {
      title: "Borrowed",
      status: "published",
      blocks_json: { blocks: [{ type: "image", data: { media_id: mediaB, caption: "theirs" } }] },
    });
    const detail = (await (await call("GET", `/v1/posts/${post.id}`, { key: a.ck })).json()) as {
      content_html: string;
    };
    expect(detail.content_html).not.toContain(b.site.id);
    expect(detail.content_html).not.toContain(mediaB);
  });

  it("listings of A never contain B's posts, in either mode", async () => {
    const a = await tenant();
    const b = await tenant();
    await createPost(b.ck, { title: "B1", status: "published" });
    await createPost(b.ck, { title: "B2" });
    const pub = (await (await call("GET", "/v1/posts", { key: a.ck })).json()) as { items: unknown[] };
    const auth = (await (await call("GET", "/v1/posts?status=draft,published", { key: a.ck })).json()) as {
      items: unknown[];
    };
    expect(pub.items).toEqual([]);
    expect(auth.items).toEqual([]);
  });

  it("GET /v1/site answers the key's own site only", async () => {
    const a = await tenant();
    const b = await tenant();
    const site = (await (await call("GET", "/v1/site", { key: a.ck })).json()) as { id: string };
    expect(site.id).toBe(a.site.id);
    expect(site.id).not.toBe(b.site.id);
  });
});
