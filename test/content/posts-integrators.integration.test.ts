/**
 * What integrators trip over (issue 11): a slug in several languages is never picked silently, partial
 * edits without a precondition always land (and If-Match guards those that send one), a scheduled post
 * going live is visible to `since`, and posts carry their public `url`.
 */
import { describe, expect, it } from "vitest";
import { EDIT_MAX_LOST_ATTEMPTS } from "../../src/content/posts/service";
import { contentDbOf } from "../support/content-groups";
import { call, content, createPost, ORIGIN, tenant } from "../support/content-helpers";

async function summaryOf(siteId: string, id: string): Promise<{ summary: string | null; status: string }> {
  const row = await (await contentDbOf(siteId))
    .prepare("SELECT summary, status FROM posts WHERE id = ?")
    .bind(id)
    .first<{ summary: string | null; status: string }>();
  return row!;
}

/** A slug live in English and a draft of the same slug in Portuguese. */
async function twoLanguages() {
  const t = await tenant();
  const en = await createPost(t.ck, { title: "Hello", slug: "hello", status: "published", summary: "en" });
  const pt = await createPost(t.ck, { title: "Olá", slug: "hello", language: "pt", summary: "pt" });
  return { t, en, pt };
}

async function expectAmbiguous(res: Response, languages: string[]) {
  expect(res.status).toBe(400);
  const p = (await res.json()) as { code: string; details: { languages: string[] } };
  expect(p.code).toBe("AMBIGUOUS_SLUG");
  expect(p.details.languages.sort()).toEqual(languages);
}

describe("a slug in several languages is never picked silently", () => {
  it("PATCH without ?language= is 400 AMBIGUOUS_SLUG even when one of them is published; nothing changes", async () => {
    const { t, en, pt } = await twoLanguages();
    await expectAmbiguous(
      await call("PATCH", "/v1/posts/hello", { key: t.ck, body: { summary: "edited" } }),
      ["en", "pt"],
    );
    expect((await summaryOf(t.site.id, en.id)).summary).toBe("en");
    expect((await summaryOf(t.site.id, pt.id)).summary).toBe("pt");
    const picked = await call("PATCH", "/v1/posts/hello?language=pt", { key: t.ck, body: { summary: "x" } });
    expect(((await picked.json()) as { id: string }).id).toBe(pt.id);
  });

  it("unpublish without ?language= is 400 and archives nothing; with it, the chosen post", async () => {
    const { t, en } = await twoLanguages();
    await expectAmbiguous(await call("POST", "/v1/posts/hello/unpublish", { key: t.ck }), ["en", "pt"]);
    expect((await summaryOf(t.site.id, en.id)).status).toBe("published");
    const res = await call("POST", "/v1/posts/hello/unpublish?language=en", { key: t.ck });
    expect(res.status).toBe(200);
    expect((await summaryOf(t.site.id, en.id)).status).toBe("archived");
  });

  it("the source and the SEO update without ?language= are 400; nothing is written", async () => {
    const { t, en } = await twoLanguages();
    await expectAmbiguous(await call("GET", "/v1/posts/hello/source", { key: t.ck }), ["en", "pt"]);
    await expectAmbiguous(
      await call("PATCH", "/v1/posts/hello/seo", { key: t.ck, body: { meta_title: "MT" } }),
      ["en", "pt"],
    );
    const seo = (await (await call("GET", `/v1/posts/${en.id}/seo`, { key: t.ck })).json()) as {
      meta_title: string | null;
    };
    expect(seo.meta_title).toBeNull();
    const source = await call("GET", "/v1/posts/hello/source?language=pt", { key: t.ck });
    expect(((await source.json()) as { language: string }).language).toBe("pt");
  });

  it("a slug public in several languages: the public GET and the SEO read are 400 without ?language=", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "Hello", slug: "hello", status: "published" });
    const pt = await createPost(t.ck, { title: "Olá", slug: "hello", language: "pt", status: "published" });
    for (const path of ["/v1/posts/hello", "/v1/posts/hello/seo"]) {
      await expectAmbiguous(await call("GET", path, { key: t.pk, origin: ORIGIN }), ["en", "pt"]);
      await expectAmbiguous(await call("GET", path, { key: t.ck }), ["en", "pt"]);
    }
    const picked = await call("GET", "/v1/posts/hello?language=pt", { key: t.pk, origin: ORIGIN });
    expect(((await picked.json()) as { id: string }).id).toBe(pt.id);
  });

  it("a public read sees only public posts: a slug public in one language and draft in another is not ambiguous", async () => {
    const { t, en } = await twoLanguages();
    const res = await call("GET", "/v1/posts/hello", { key: t.pk, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(en.id);
  });

  it("ids are never ambiguous (?language= ignored)", async () => {
    const { t, en } = await twoLanguages();
    const res = await call("PATCH", `/v1/posts/${en.id}?language=pt`, { key: t.ck, body: { summary: "id" } });
    expect(((await res.json()) as { id: string }).id).toBe(en.id);
    const read = await call("GET", `/v1/posts/${en.id}`, { key: t.pk, origin: ORIGIN });
    expect(read.status).toBe(200);
  });
});

type Answer = { status: number; etag: string | null; body: Record<string, unknown> };

async function patch(key: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await call("PATCH", path, { key, body, headers });
  return {
    status: res.status,
    etag: res.headers.get("etag"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function source(key: string, id: string) {
  const res = await call("GET", `/v1/posts/${id}/source`, { key });
  return { etag: res.headers.get("etag"), body: (await res.json()) as Record<string, unknown> };
}

const revisionOf = (a: Answer) => Number(/"rev-(\d+)"/.exec(a.etag ?? "")?.[1]);

describe("concurrent PATCHes without a precondition always apply", () => {
  it("30 concurrent PATCHes of different fields all land (none 409)", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    // author_slug names an existing persona of the site (issue11-j): the site has author-0 … author-29.
    const db = await contentDbOf(t.site.id);
    await db.batch(
      Array.from({ length: 30 }, (_, i) =>
        db
          .prepare(
            "INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, ?, ?, ?, ?)",
          )
          .bind(t.site.id, `author-${i}`, `Author ${i}`, `user-${i}`, new Date().toISOString()),
      ),
    );
    const bodies = Array.from({ length: 30 }, (_, i) => {
      const field = i % 6;
      if (field === 0) return { title: `title-${i}` };
      if (field === 1) return { summary: `summary-${i}` };
      if (field === 2) return { author_slug: `author-${i}` };
      if (field === 3) return { category_slugs: [`c-${i}`] };
      if (field === 4) return { tag_slugs: [`t-${i}`] };
      return { blocks_json: { blocks: [{ type: "paragraph", data: { text: `b-${i}` } }] } };
    });
    const answers = await Promise.all(bodies.map((body) => patch(t.ck, `/v1/posts/${post.id}`, body)));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    const { body: src } = await source(t.ck, post.id);
    // Of each field, the value of the last PATCH that wrote it (the highest revision among its writers).
    for (const [field, pick] of [
      ["title", (b: Record<string, unknown>) => b.title],
      ["summary", (b: Record<string, unknown>) => b.summary],
      ["author_slug", (b: Record<string, unknown>) => b.author_slug],
      ["category_slugs", (b: Record<string, unknown>) => b.category_slugs],
      ["tag_slugs", (b: Record<string, unknown>) => b.tag_slugs],
      ["blocks_json", (b: Record<string, unknown>) => b.blocks_json],
    ] as const) {
      const writers = answers
        .map((a, i) => ({ a, body: bodies[i]! as Record<string, unknown> }))
        .filter((w) => field in w.body)
        .sort((x, y) => revisionOf(x.a) - revisionOf(y.a));
      expect(src[field], field).toEqual(pick(writers.at(-1)!.body));
    }
    expect(new Set(answers.map(revisionOf)).size).toBe(30);
  });

  it("30 concurrent PATCHes of one field: all 200, the last one wins", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => patch(t.ck, `/v1/posts/${post.id}`, { title: `T${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const last = [...answers].sort((x, y) => revisionOf(x) - revisionOf(y)).at(-1)!;
    expect((await source(t.ck, post.id)).body.title).toBe(last.body.title);
  });

  it("30 concurrent PATCHes of the date and status of a live post never 409", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        patch(
          t.ck,
          `/v1/posts/${post.id}`,
          i % 3 === 0
            ? { status: "published" }
            : { published_at: new Date(Date.now() - (i + 1) * 60_000).toISOString() },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  });
});

describe("an edit that keeps losing", () => {
  it(`answers 409 EDIT_CONFLICT once ${EDIT_MAX_LOST_ATTEMPTS} retries lost, changing nothing`, async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    const before = (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck }).then((r) =>
      r.json(),
    )) as {
      published_at: string;
    };
    // Every attempt loses: a trigger on this post alone skips the UPDATE, as if another edit had committed
    // first (the row's revision moved). It cannot count the attempts: D1 counts a trigger's writes as the
    // statement's changes, which the edit reads as its own.
    const trigger = `lose_every_edit_${post.id}`;
    await (await contentDbOf(t.site.id))
      .prepare(
        `CREATE TRIGGER ${trigger} BEFORE UPDATE ON posts WHEN OLD.id = '${post.id}' BEGIN SELECT RAISE(IGNORE); END`,
      )
      .run();
    try {
      const res = await call("PATCH", `/v1/posts/${post.id}`, {
        key: t.ck,
        body: { published_at: new Date(Date.now() - 3_600_000).toISOString() },
      });
      expect(res.status).toBe(409);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(((await res.json()) as { code: string }).code).toBe("EDIT_CONFLICT");
    } finally {
      await (await contentDbOf(t.site.id)).prepare(`DROP TRIGGER ${trigger}`).run();
    }
    const after = (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck }).then((r) => r.json())) as {
      published_at: string;
    };
    expect(after.published_at).toBe(before.published_at);
  });
});

describe("ETag and If-Match on the source and PATCH", () => {
  it("the source and the PATCH answer carry the post's revision as ETag", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P" });
    const first = await source(t.ck, post.id);
    expect(first.etag).toMatch(/^"rev-\d+"$/);
    const edited = await patch(t.ck, `/v1/posts/${post.id}`, { title: "Q" });
    expect(edited.etag).toMatch(/^"rev-\d+"$/);
    expect(edited.etag).not.toBe(first.etag);
    expect((await source(t.ck, post.id)).etag).toBe(edited.etag);
  });

  it("If-Match with a stale ETag is 412 PRECONDITION_FAILED and changes nothing; current or * apply", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    const stale = (await source(t.ck, post.id)).etag!;
    const current = (await patch(t.ck, `/v1/posts/${post.id}`, { summary: "by someone else" })).etag!;
    for (const body of [{ title: "mine" }, { status: "draft" }]) {
      const refused = await patch(t.ck, `/v1/posts/${post.id}`, body, { "if-match": stale });
      expect(refused.status).toBe(412);
      expect(refused.body.code).toBe("PRECONDITION_FAILED");
    }
    const weak = await patch(t.ck, `/v1/posts/${post.id}`, { title: "mine" }, { "if-match": `W/${current}` });
    expect(weak.status).toBe(412);
    const after = await source(t.ck, post.id);
    expect(after.body).toMatchObject({ title: "P", summary: "by someone else", status: "published" });
    expect(after.etag).toBe(current);
    const ok = await patch(
      t.ck,
      `/v1/posts/${post.id}`,
      { title: "mine" },
      { "if-match": `"x", ${current}` },
    );
    expect(ok.status).toBe(200);
    const star = await patch(t.ck, `/v1/posts/${post.id}`, { status: "draft" }, { "if-match": "*" });
    expect(star.status).toBe(200);
    expect((await source(t.ck, post.id)).body).toMatchObject({ title: "mine", status: "draft" });
  });

  it("of concurrent PATCHes sending the same current ETag exactly one applies; the others are 412", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P" });
    const etag = (await source(t.ck, post.id)).etag!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        patch(t.ck, `/v1/posts/${post.id}`, i % 2 ? { title: `T${i}` } : { status: "published" }, {
          "if-match": etag,
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 412)).toHaveLength(9);
  });
});

describe("a scheduled post going live is visible to incremental sync", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function publishedEvents(siteId: string) {
    const { results } = await (await contentDbOf(siteId))
      .prepare(
        "SELECT payload_json FROM outbound_effects WHERE site_id = ? AND kind = 'event:post.published'",
      )
      .bind(siteId)
      .all<{ payload_json: string }>();
    return results.map((r) => JSON.parse(r.payload_json) as Record<string, unknown>);
  }

  it("since after the scheduling shows the post once it is due, dated at its publication moment, before any cron", async () => {
    const t = await tenant();
    const at = new Date(Date.now() + 1500).toISOString();
    const post = await createPost(t.ck, { title: "Later", status: "published", published_at: at });
    expect(post.status).toBe("scheduled");
    await sleep(20);
    const since = new Date().toISOString();
    const before = await call("GET", `/v1/posts?since=${since}`, { key: t.pk, origin: ORIGIN });
    expect(((await before.json()) as { items: unknown[] }).items).toEqual([]);
    await sleep(Date.parse(at) - Date.now() + 50);
    for (const query of [`since=${since}`, `since=${since}&status=published`]) {
      const key = query.includes("status") ? t.ck : t.pk;
      const res = await call("GET", `/v1/posts?${query}`, { key, origin: ORIGIN });
      const items = ((await res.json()) as { items: { id: string; updated_at: string }[] }).items;
      expect(
        items.map((i) => i.id),
        query,
      ).toEqual([post.id]);
      expect(items[0]!.updated_at).toBe(at);
    }
  });

  it("the cron stores the due post as published at its publication moment and emits post.published once", async () => {
    const t = await tenant();
    const at = new Date(Date.now() + 1000).toISOString();
    const post = await createPost(t.ck, { title: "Soon", status: "published", published_at: at });
    const beforeDue = (await source(t.ck, post.id)).etag;
    await sleep(Date.parse(at) - Date.now() + 50);
    const due = await source(t.ck, post.id);
    expect(due.etag).not.toBe(beforeDue);
    expect(due.body).toMatchObject({ status: "published", updated_at: at });
    await content.scheduled({ cron: "* * * * *" });
    await content.scheduled({ cron: "30 * * * *" });
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, updated_at FROM posts WHERE id = ?")
      .bind(post.id)
      .first<{ status: string; updated_at: string }>();
    expect(row).toEqual({ status: "published", updated_at: at });
    // The tag read once the post was due stays valid across the cron's publication.
    expect((await source(t.ck, post.id)).etag).toBe(due.etag);
    let events: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      await sleep(100);
      events = await publishedEvents(t.site.id);
    }
    await sleep(300);
    events = await publishedEvents(t.site.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "post.published",
      post_id: post.id,
      published_at: at,
      url: `https://${t.site.primary_domain}/soon`,
    });
  });

  it("a post scheduled long ago that was never published by a cron is published once, dated at its time", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Old", status: "draft" });
    const at = new Date(Date.now() - 3600_000).toISOString();
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET status = 'scheduled', published_at = ?, updated_at = ? WHERE id = ?")
      .bind(at, new Date(Date.now() - 7200_000).toISOString(), post.id)
      .run();
    const since = new Date(Date.now() - 3700_000).toISOString();
    const res = await call("GET", `/v1/posts?since=${since}`, { key: t.pk, origin: ORIGIN });
    expect(((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([post.id]);
    await content.scheduled({ cron: "* * * * *" });
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, updated_at FROM posts WHERE id = ?")
      .bind(post.id)
      .first<{ status: string; updated_at: string }>();
    expect(row).toEqual({ status: "published", updated_at: at });
  });
});
