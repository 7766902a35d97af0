import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { call, createPost, ORIGIN, paragraph, problem, tenant, testEnv } from "../support/content-helpers";

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

async function seedMedia(siteId: string): Promise<string> {
  const id = newId();
  await testEnv.DB.prepare(
    `INSERT INTO media (id, site_id, r2_key, content_type, size_bytes, status, created_at)
     VALUES (?, ?, ?, 'image/png', 10, 'ready', ?)`,
  )
    .bind(id, siteId, `sites/${siteId}/${id}.png`, new Date().toISOString())
    .run();
  return id;
}

async function effects(siteId: string, kind: string) {
  const { results } = await testEnv.DB.prepare(
    "SELECT subject_id, payload_json FROM outbound_effects WHERE site_id = ? AND kind = ? ORDER BY created_at",
  )
    .bind(siteId, kind)
    .all<{ subject_id: string; payload_json: string }>();
  return results.map((r) => ({
    subject_id: r.subject_id,
    payload: JSON.parse(r.payload_json) as Record<string, unknown>,
  }));
}

describe("PATCH /v1/posts/{reference}", () => {
  it("changes only the sent fields", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Before",
      summary: "keep me",
      blocks_json: paragraph("body"),
      tag_slugs: ["t1"],
      category_slugs: ["c1"],
    });
    const res = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { title: "After", tag_slugs: ["t2"] },
    });
    expect(res.status).toBe(200);
    const src = (await (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).json()) as Record<
      string,
      unknown
    >;
    expect(src).toMatchObject({
      title: "After",
      summary: "keep me",
      slug: "before",
      tag_slugs: ["t2"],
      category_slugs: ["c1"],
      blocks_json: paragraph("body"),
      status: "draft",
    });
  });

  it("a body with nothing editable is 400 NOTHING_EDITABLE", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "X" });
    for (const body of [{}, { site_id: "x", unknown: 1 }]) {
      const res = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body });
      expect(res.status).toBe(400);
      expect((await problem(res)).code).toBe("NOTHING_EDITABLE");
    }
  });

  it("publishes a draft, and a taken slug is 409 SLUG_TAKEN", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "Taken", slug: "taken" });
    const post = await createPost(t.ck, { title: "Draft" });
    const pub = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { status: "published" } });
    expect(((await pub.json()) as { status: string }).status).toBe("published");
    expect((await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN })).status).toBe(200);
    const clash = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { slug: "taken" } });
    expect(clash.status).toBe(409);
    expect((await problem(clash)).code).toBe("SLUG_TAKEN");
  });

  it("slug resolution: published first, then drafts and scheduled; archived by id only", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Draft", slug: "d-slug" });
    const scheduled = await createPost(t.ck, {
      title: "S",
      slug: "s-slug",
      status: "scheduled",
      published_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    const archived = await createPost(t.ck, { title: "A", slug: "a-slug", status: "archived" });
    const pubEn = await createPost(t.ck, { title: "P", slug: "mixed", status: "published" });
    await createPost(t.ck, { title: "P draft pt", slug: "mixed", language: "pt" });
    for (const [ref, id] of [
      ["d-slug", draft.id],
      ["s-slug", scheduled.id],
      ["mixed", pubEn.id],
    ]) {
      const res = await call("PATCH", `/v1/posts/${ref}`, { key: t.ck, body: { summary: "s" } });
      expect(res.status, ref).toBe(200);
      expect(((await res.json()) as { id: string }).id).toBe(id);
    }
    expect((await call("PATCH", "/v1/posts/a-slug", { key: t.ck, body: { summary: "s" } })).status).toBe(404);
    expect(
      (await call("PATCH", `/v1/posts/${archived.id}`, { key: t.ck, body: { summary: "s" } })).status,
    ).toBe(200);
  });

  it("finds a draft by slug however many newer drafts exist (no window, no cap)", async () => {
    const t = await tenant();
    const target = await createPost(t.ck, { title: "Needle", slug: "needle" });
    const now = new Date().toISOString();
    await testEnv.DB.batch(
      Array.from({ length: 300 }, (_, i) =>
        testEnv.DB.prepare(
          `INSERT INTO posts (id, site_id, slug, language, post_type, title, status, access, seo_json, created_at, updated_at)
           VALUES (?, ?, ?, 'en', 'post', 'Hay', ?, 'public', '{}', ?, ?)`,
        ).bind(newId(), t.site.id, `hay-${i}`, i % 2 ? "draft" : "scheduled", now, now),
      ),
    );
    const res = await call("PATCH", "/v1/posts/needle", { key: t.ck, body: { summary: "found" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(target.id);
  });

  it("a slug in several languages without ?language= is 400 AMBIGUOUS_SLUG; ?language= picks; ignored for ids", async () => {
    const t = await tenant();
    const en = await createPost(t.ck, { title: "Hello", slug: "hello" });
    const pt = await createPost(t.ck, { title: "Olá", slug: "hello", language: "pt-BR" });
    const res = await call("PATCH", "/v1/posts/hello", { key: t.ck, body: { summary: "x" } });
    expect(res.status).toBe(400);
    const p = (await res.json()) as { code: string; details: { languages: string[] } };
    expect(p.code).toBe("AMBIGUOUS_SLUG");
    expect(p.details.languages.sort()).toEqual(["en", "pt-BR"]);
    const picked = await call("PATCH", "/v1/posts/hello?language=pt-BR", {
      key: t.ck,
      body: { summary: "x" },
    });
    expect(((await picked.json()) as { id: string }).id).toBe(pt.id);
    const byId = await call("PATCH", `/v1/posts/${en.id}?language=pt-BR`, {
      key: t.ck,
      body: { summary: "y" },
    });
    expect(((await byId.json()) as { id: string }).id).toBe(en.id);
    expect(
      (await call("PATCH", "/v1/posts/hello?language=%%", { key: t.ck, body: { summary: "x" } })).status,
    ).toBe(400);
  });

  it("moving published_at of a live post sends an IndexNow notification; a draft's date does not", async () => {
    const t = await tenant();
    const live = await createPost(t.ck, { title: "Live", status: "published", published_at: minutesAgo(60) });
    const draft = await createPost(t.ck, { title: "Draft", published_at: minutesAgo(60) });
    await call("PATCH", `/v1/posts/${draft.id}`, { key: t.ck, body: { published_at: minutesAgo(30) } });
    await call("PATCH", `/v1/posts/${live.id}`, { key: t.ck, body: { title: "Live, retitled" } });
    expect(await effects(t.site.id, "indexnow")).toEqual([]);
    const res = await call("PATCH", `/v1/posts/${live.id}`, {
      key: t.ck,
      body: { published_at: minutesAgo(30) },
    });
    expect(res.status).toBe(200);
    const sent = await effects(t.site.id, "indexnow");
    expect(sent).toEqual([
      { subject_id: live.id, payload: { urls: [`https://${t.site.primary_domain}/live`] } },
    ]);
  });

  it("featured_image_id: a media id sets it, null clears it, omitting keeps it; another site's media is 422", async () => {
    const t = await tenant();
    const other = await tenant();
    const media = await seedMedia(t.site.id);
    const foreign = await seedMedia(other.site.id);
    const post = await createPost(t.ck, { title: "Cover", status: "published", featured_image_id: media });
    expect(post.featured_image_id).toBe(media);
    const detail = (await (await call("GET", `/v1/posts/${post.id}`, { key: t.ck })).json()) as Record<
      string,
      unknown
    >;
    expect(detail.featured_image_url).toBe(`${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${media}.png`);
    const kept = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Still" } });
    expect(((await kept.json()) as { featured_image_id: string }).featured_image_id).toBe(media);
    const cleared = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { featured_image_id: null },
    });
    expect(((await cleared.json()) as { featured_image_id: string | null }).featured_image_id).toBeNull();
    const res = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { featured_image_id: foreign },
    });
    expect(res.status).toBe(422);
    expect((await problem(res)).code).toBe("UNKNOWN_MEDIA");
  });
});

describe("POST /v1/posts/{reference}/unpublish", () => {
  it("moves published to archived, emits the unpublication event and purges the cached page", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Going away", status: "published" });
    const res = await call("POST", `/v1/posts/${post.slug}/unpublish`, { key: t.ck });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("archived");
    expect((await call("GET", `/v1/posts/${post.id}`, { key: t.ck })).status).toBe(404);
    const url = `https://${t.site.primary_domain}/going-away`;
    expect(await effects(t.site.id, "cache_purge")).toEqual([
      { subject_id: post.id, payload: { urls: [url] } },
    ]);
    // The event goes through the content-events queue (its dev consumer records what it received).
    let delivered: Awaited<ReturnType<typeof effects>> = [];
    for (let i = 0; i < 50 && delivered.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      delivered = await effects(t.site.id, "event:post.unpublished");
    }
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.payload).toMatchObject({ type: "post.unpublished", post_id: post.id, url });
    // Still in the archive: the source is readable by id.
    expect((await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).status).toBe(200);
  });

  it("anything but published is 409 POST_NOT_PUBLISHED and changes nothing", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Draft" });
    const archived = await createPost(t.ck, { title: "Arch", status: "archived" });
    const scheduled = await createPost(t.ck, {
      title: "Sch",
      status: "scheduled",
      published_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    for (const ref of [draft.id, archived.id, scheduled.id, draft.slug]) {
      const res = await call("POST", `/v1/posts/${ref}/unpublish`, { key: t.ck });
      expect(res.status, ref).toBe(409);
      expect((await problem(res)).code).toBe("POST_NOT_PUBLISHED");
    }
    expect(await effects(t.site.id, "cache_purge")).toEqual([]);
  });

  it("of concurrent unpublishes exactly one wins", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Once", status: "published" });
    const statuses = (
      await Promise.all(
        Array.from({ length: 8 }, () => call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck })),
      )
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    expect(await effects(t.site.id, "cache_purge")).toHaveLength(1);
  });
});

describe("GET /v1/posts/{reference}/source", () => {
  it("returns blocks_json exactly as stored (platform and unknown blocks kept), private, no-store", async () => {
    const t = await tenant();
    const blocks = {
      time: 1700000000000,
      version: "2.28.0",
      blocks: [
        { id: "h", type: "header", data: { text: "Title <i>x</i>", level: 2 } },
        { id: "a", type: "ad", data: { slot: "top" } },
        { id: "p", type: "product_card", data: { sku: "1" } },
        { id: "s", type: "story_page", data: {} },
        { id: "u", type: "mystery_widget", data: { anything: [1, { deep: true }] } },
        { id: "x", type: "paragraph", data: { text: "<script>kept in source</script>" } },
      ],
    };
    const post = await createPost(t.ck, { title: "Source", blocks_json: blocks });
    const res = await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const src = (await res.json()) as Record<string, unknown>;
    expect(src.blocks_json).toEqual(blocks);
    expect(src.summary).toBeNull();
    expect(src.author_slug).toBeNull();
    expect(src.featured_image_id).toBeNull();
    expect(src.category_slugs).toEqual([]);
    expect(src.tag_slugs).toEqual([]);
  });

  it("a post without a body has blocks_json null", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Empty" });
    const src = (await (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).json()) as Record<
      string,
      unknown
    >;
    expect(src.blocks_json).toBeNull();
  });

  it("a stored body in an unrecognized format is 502 STORED_BODY_UNRECOGNIZED, never an empty body", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Legacy", blocks_json: paragraph("x") });
    for (const legacy of ["<p>legacy html</p>", '{"ops":[{"insert":"quill"}]}']) {
      await testEnv.DB.prepare("UPDATE posts SET blocks_json = ? WHERE id = ?").bind(legacy, post.id).run();
      const res = await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck });
      expect(res.status).toBe(502);
      expect((await problem(res)).code).toBe("STORED_BODY_UNRECOGNIZED");
    }
  });
});

describe("GET|PATCH /v1/posts/{reference}/seo", () => {
  it("merges allowed keys into seo_json, null removes one, taxonomy untouched", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Seo", status: "published", tag_slugs: ["t"] });
    const res = await call("PATCH", `/v1/posts/${post.id}/seo`, {
      key: t.ck,
      body: { meta_title: "MT", noindex: true, og_image: "https://img.test/a.png" },
    });
    expect(res.status).toBe(200);
    await call("PATCH", `/v1/posts/${post.id}/seo`, {
      key: t.ck,
      body: { meta_description: "MD", noindex: null },
    });
    const seo = (await (
      await call("GET", `/v1/posts/${post.id}/seo`, { key: t.pk, origin: ORIGIN })
    ).json()) as Record<string, unknown>;
    expect(seo).toMatchObject({
      meta_title: "MT",
      meta_description: "MD",
      noindex: null,
      og_image: "https://img.test/a.png",
    });
    const src = (await (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).json()) as Record<
      string,
      unknown
    >;
    expect(src.tag_slugs).toEqual(["t"]);
  });

  it("a body with nothing editable is 400; invalid values are 400", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Seo", status: "published" });
    const empty = await call("PATCH", `/v1/posts/${post.id}/seo`, {
      key: t.ck,
      body: { tag_slugs: ["x"], foo: 1 },
    });
    expect(empty.status).toBe(400);
    expect((await problem(empty)).code).toBe("NOTHING_EDITABLE");
    const bad = await call("PATCH", `/v1/posts/${post.id}/seo`, {
      key: t.ck,
      body: { canonical_url: "javascript:alert(1)" },
    });
    expect(bad.status).toBe(400);
  });

  it("reading SEO resolves like GET /v1/posts/{reference}: a draft is 404", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Hidden" });
    expect((await call("GET", `/v1/posts/${draft.id}/seo`, { key: t.ck })).status).toBe(404);
  });
});
