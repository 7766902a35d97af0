/**
 * What integrators trip over (issue 11): a slug in several languages is never picked silently, partial
 * edits without a precondition always land (and If-Match guards those that send one), a scheduled post
 * going live is visible to `since`, and posts carry their public `url`.
 */
import { describe, expect, it } from "vitest";
import { call, createPost, ORIGIN, tenant, testEnv } from "../support/content-helpers";

async function summaryOf(id: string): Promise<{ summary: string | null; status: string }> {
  const row = await testEnv.DB.prepare("SELECT summary, status FROM posts WHERE id = ?")
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
    expect((await summaryOf(en.id)).summary).toBe("en");
    expect((await summaryOf(pt.id)).summary).toBe("pt");
    const picked = await call("PATCH", "/v1/posts/hello?language=pt", { key: t.ck, body: { summary: "x" } });
    expect(((await picked.json()) as { id: string }).id).toBe(pt.id);
  });

  it("unpublish without ?language= is 400 and archives nothing; with it, the chosen post", async () => {
    const { t, en } = await twoLanguages();
    await expectAmbiguous(await call("POST", "/v1/posts/hello/unpublish", { key: t.ck }), ["en", "pt"]);
    expect((await summaryOf(en.id)).status).toBe("published");
    const res = await call("POST", "/v1/posts/hello/unpublish?language=en", { key: t.ck });
    expect(res.status).toBe(200);
    expect((await summaryOf(en.id)).status).toBe("archived");
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
