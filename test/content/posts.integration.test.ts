import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  content,
  countRows,
  createKey,
  createPost,
  ORIGIN,
  paragraph,
  problem,
  tenant,
} from "../support/content-helpers";

interface Detail {
  id: string;
  slug: string;
  title: string;
  language: string;
  post_type: string;
  content_html: string;
  author: { slug: string } | null;
  category_slugs: string[];
  tag_slugs: string[];
  featured_image_id: string | null;
}

describe("POST /v1/posts", () => {
  it("creates a published post: slug derived from the title, the site's language, type post", async () => {
    const t = await tenant({ default_language: "pt-BR" });
    const res = await call("POST", "/v1/posts", {
      key: t.ck,
      body: {
        title: "Olá, Mundo Çedilha!",
        summary: "first",
        blocks_json: paragraph("Hello <b>bold</b><script>alert(1)</script>"),
        status: "published",
        author_slug: "test-key",
        category_slugs: ["news"],
        tag_slugs: ["a", "b"],
      },
    });
    expect(res.status).toBe(201);
    const post = (await res.json()) as Record<string, unknown>;
    expect(res.headers.get("location")).toBe(`/v1/posts/${post.id}`);
    expect(post).toMatchObject({
      slug: "ola-mundo-cedilha",
      language: "pt-BR",
      post_type: "post",
      status: "published",
      author: { slug: "test-key", display_name: "test key" },
      category_slugs: ["news"],
      tag_slugs: ["a", "b"],
      access: "public",
    });
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT seo_json, author_user_id FROM posts WHERE id = ?")
      .bind(post.id)
      .first<{ seo_json: string; author_user_id: string }>();
    expect(JSON.parse(row!.seo_json)).toEqual({ category_slugs: ["news"], tag_slugs: ["a", "b"] });
    expect(row!.author_user_id).toBe(`user-${t.site.id}`);
  });

  it("defaults to a draft, which is not public", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Draft one" });
    expect(post.status).toBe("draft");
    const res = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
    expect(res.status).toBe(404);
  });

  it("the site comes from the key: a site_id in the body is refused (422 UNKNOWN_FIELD), never used", async () => {
    const a = await tenant();
    const b = await tenant();
    // Issue 33: the body's site_id was silently dropped; now it is named, and nothing is created anywhere.
    const named = await call("POST", "/v1/posts", {
      key: a.ck,
      body: { title: "Mine", status: "published", site_id: b.site.id },
    });
    expect(named.status).toBe(422);
    expect(await named.json()).toMatchObject({ code: "UNKNOWN_FIELD", details: { path: "site_id" } });
    expect(await countRows("posts", a.site.id)).toBe(0);
    expect(await countRows("posts", b.site.id)).toBe(0);
    const post = await createPost(a.ck, { title: "Mine", status: "published" });
    expect((await call("GET", `/v1/posts/${post.id}`, { key: a.ck })).status).toBe(200);
    expect((await call("GET", `/v1/posts/${post.id}`, { key: b.ck })).status).toBe(404);
  });

  it("refuses pk_ keys (403) and ck_ keys without posts:write (403)", async () => {
    const t = await tenant();
    const pk = await call("POST", "/v1/posts", { key: t.pk, origin: ORIGIN, body: { title: "x" } });
    expect(pk.status).toBe(403);
    const readOnly = await createKey(t.site, { scopes: ["posts:read"] });
    const res = await call("POST", "/v1/posts", { key: readOnly.key, body: { title: "x" } });
    expect(res.status).toBe(403);
    expect((await problem(res)).code).toBe("INSUFFICIENT_SCOPE");
  });

  it("401 without a key or with an unknown key", async () => {
    expect((await call("POST", "/v1/posts", { body: { title: "x" } })).status).toBe(401);
    const res = await call("POST", "/v1/posts", {
      key: "ck_unknownunknownunknownunknownunknownunknown",
      body: { title: "x" },
    });
    expect(res.status).toBe(401);
    expect((await problem(res)).code).toBe("UNAUTHENTICATED");
  });

  it("422 NO_AUTHORSHIP_CONTEXT for a legacy key that has no creator recorded", async () => {
    const t = await tenant();
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE api_keys SET created_by = NULL WHERE id = ?")
      .bind(t.secretKey.id)
      .run();
    const res = await call("POST", "/v1/posts", { key: t.ck, body: { title: "x" } });
    expect(res.status).toBe(422);
    expect((await problem(res)).code).toBe("NO_AUTHORSHIP_CONTEXT");
    expect(await countRows("posts", t.site.id)).toBe(0);
  });

  it("validates the body: 400 for bad blocks_json, slug, language, published_at, post_type; 422 for unknown type", async () => {
    const t = await tenant();
    const cases: [Record<string, unknown>, number, string][] = [
      [{}, 400, "BAD_REQUEST"],
      [{ title: "x", blocks_json: { nope: true } }, 400, "INVALID_BLOCKS"],
      [{ title: "x", blocks_json: "<p>html</p>" }, 400, "INVALID_BLOCKS"],
      [{ title: "x", slug: "Not A Slug" }, 400, "INVALID_SLUG"],
      [{ title: "x", slug: newId().toLowerCase() }, 400, "INVALID_SLUG"],
      [{ title: "x", language: "english!" }, 400, "INVALID_LANGUAGE"],
      [{ title: "x", published_at: "yesterday" }, 400, "INVALID_PUBLISHED_AT"],
      [{ title: "x", post_type: "Bad Type" }, 400, "INVALID_POST_TYPE"],
      [{ title: "x", post_type: "recipe" }, 422, "UNKNOWN_POST_TYPE"],
      [{ title: "x", status: "deleted" }, 400, "BAD_REQUEST"],
      [{ title: "x", status: "scheduled" }, 400, "INVALID_SCHEDULE"],
      [{ title: "x", featured_image_id: newId() }, 422, "UNKNOWN_MEDIA"],
    ];
    for (const [body, status, code] of cases) {
      const res = await call("POST", "/v1/posts", { key: t.ck, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await problem(res)).code, JSON.stringify(body)).toBe(code);
    }
    const malformed = await call("POST", "/v1/posts", { key: t.ck, body: "{not json" });
    expect(malformed.status).toBe(400);
  });
});

describe("slug uniqueness per (site, slug, language)", () => {
  it("derived slugs get -2, -3 …; an explicit taken slug is 409 SLUG_TAKEN", async () => {
    const t = await tenant();
    const a = await createPost(t.ck, { title: "Same Title" });
    const b = await createPost(t.ck, { title: "Same Title" });
    const c = await createPost(t.ck, { title: "Same title!" });
    expect([a.slug, b.slug, c.slug]).toEqual(["same-title", "same-title-2", "same-title-3"]);
    const res = await call("POST", "/v1/posts", { key: t.ck, body: { title: "Other", slug: "same-title" } });
    expect(res.status).toBe(409);
    expect((await problem(res)).code).toBe("SLUG_TAKEN");
  });

  it("concurrent creates: one title gives distinct derived slugs; one explicit slug has one winner", async () => {
    const t = await tenant();
    const derived = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", "/v1/posts", { key: t.ck, body: { title: "Hot Topic" } }),
      ),
    );
    expect(derived.map((r) => r.status)).toEqual(derived.map(() => 201));
    const slugs = await Promise.all(derived.map(async (r) => ((await r.json()) as { slug: string }).slug));
    expect(new Set(slugs).size).toBe(10);
    expect(slugs).toContain("hot-topic");
    const explicit = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call("POST", "/v1/posts", { key: t.ck, body: { title: `E${i}`, slug: "exact" } }),
      ),
    );
    const statuses = explicit.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const r of explicit) await r.arrayBuffer();
    const count = await (await contentDbOf(t.site.id))
      .prepare("SELECT count(*) AS n FROM posts WHERE site_id = ? AND slug = 'exact'")
      .bind(t.site.id)
      .first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("the same slug is free in another language and on another site", async () => {
    const t = await tenant();
    const other = await tenant();
    await createPost(t.ck, { title: "Hello", slug: "hello" });
    const pt = await createPost(t.ck, { title: "Olá", slug: "hello", language: "pt-BR" });
    expect(pt.slug).toBe("hello");
    const elsewhere = await createPost(other.ck, { title: "Hello", slug: "hello" });
    expect(elsewhere.slug).toBe("hello");
  });
});

describe("GET /v1/posts/{reference}", () => {
  it("answers PostDetail by ULID, by slug, with content_html sanitized by the renderer", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Rendered",
      status: "published",
      blocks_json: {
        blocks: [
          { id: "a", type: "paragraph", data: { text: "Hi <script>alert(1)</script><b>there</b>" } },
          { id: "b", type: "ad", data: { slot: "x" } },
        ],
      },
    });
    for (const ref of [post.id, post.id.toLowerCase(), post.slug]) {
      const res = await call("GET", `/v1/posts/${ref}`, { key: t.pk, origin: ORIGIN });
      expect(res.status, ref).toBe(200);
      const detail = (await res.json()) as Detail;
      expect(detail.id).toBe(post.id);
      expect(detail.content_html).toContain("<b>there</b>");
      expect(detail.content_html).not.toContain("<script");
      expect(detail.content_html).not.toContain("slot");
      expect(detail).not.toHaveProperty("blocks_json");
    }
  });

  it("answers by UUID for posts whose id is a UUID", async () => {
    const t = await tenant();
    const uuid = crypto.randomUUID();
    const now = new Date().toISOString();
    await (await contentDbOf(t.site.id))
      .prepare(
        `INSERT INTO posts (id, site_id, slug, language, post_type, title, status, access, published_at, seo_json, created_at, updated_at)
       VALUES (?, ?, 'imported', 'en', 'post', 'Imported', 'published', 'public', ?, '{}', ?, ?)`,
      )
      .bind(uuid, t.site.id, now, now, now)
      .run();
    const res = await call("GET", `/v1/posts/${uuid.toUpperCase()}`, { key: t.ck });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Detail).slug).toBe("imported");
  });

  it("draft, scheduled, restricted, private-type and other-site posts answer exactly like a missing post", async () => {
    const t = await tenant();
    const other = await tenant();
    await content.definePostType({ site_id: t.site.id, slug: "internal", name: "Internal", public: false });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const hidden = [
      await createPost(t.ck, { title: "Draft", status: "draft" }),
      await createPost(t.ck, { title: "Scheduled", status: "scheduled", published_at: future }),
      await createPost(t.ck, { title: "Future published", status: "published", published_at: future }),
      await createPost(t.ck, { title: "Restricted", status: "published", access: "restricted" }),
      await createPost(t.ck, { title: "Internal", status: "published", post_type: "internal" }),
      await createPost(other.ck, { title: "Elsewhere", status: "published" }),
    ];
    const missing = await call("GET", `/v1/posts/${newId()}`, { key: t.pk, origin: ORIGIN });
    expect(missing.status).toBe(404);
    const missingBody = await missing.text();
    for (const post of hidden) {
      for (const ref of [post.id, post.slug]) {
        const res = await call("GET", `/v1/posts/${ref}`, { key: t.pk, origin: ORIGIN });
        expect(res.status, `${post.slug} by ${ref}`).toBe(404);
        expect(await res.text()).toBe(missingBody);
      }
    }
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Cache me", status: "published" });
    const first = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const second = await call("GET", `/v1/posts/${post.id}`, {
      key: t.pk,
      origin: ORIGIN,
      headers: { "if-none-match": etag! },
    });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe("");
    const stale = await call("GET", `/v1/posts/${post.id}`, {
      key: t.pk,
      origin: ORIGIN,
      headers: { "if-none-match": '"other"' },
    });
    expect(stale.status).toBe(200);
  });

  it("a slug public in several languages: ?language= picks; without it 400 AMBIGUOUS_SLUG (never the default language)", async () => {
    const t = await tenant();
    const en = await createPost(t.ck, { title: "Hello", slug: "hello", status: "published" });
    const pt = await createPost(t.ck, {
      title: "Olá",
      slug: "hello",
      language: "pt-BR",
      status: "published",
    });
    const bare = await call("GET", "/v1/posts/hello", { key: t.ck });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { code: string }).code).toBe("AMBIGUOUS_SLUG");
    const byEn = (await (await call("GET", "/v1/posts/hello?language=en", { key: t.ck })).json()) as Detail;
    expect(byEn.id).toBe(en.id);
    const byLang = (await (
      await call("GET", "/v1/posts/hello?language=pt-br", { key: t.ck })
    ).json()) as Detail;
    expect(byLang.id).toBe(pt.id);
  });
});
