/**
 * Legal pages over content's RPC (`upsertLegalPage`, `legalPages`), as sites' legal page generator calls
 * them: new pages are drafts of type `page` under /legal/; a draft the generator wrote and nobody edited
 * is regenerated; published, scheduled and hand-edited pages keep their text and only get the fields
 * that move them to /legal/ (a public page's old URL purged, `post.updated` announced with the new one).
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { LegalPageResult, LegalPageWrite } from "../../src/lib/rpc";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  content,
  countRows,
  createPost,
  ORIGIN,
  paragraph,
  recordedEffects,
  tenant,
} from "../support/content-helpers";

type Tenant = Awaited<ReturnType<typeof tenant>>;

function write(t: Tenant, documento: string, text = "Texto gerado.", ordem = 1): LegalPageWrite {
  return {
    site_id: t.site.id,
    user_id: "user-legal",
    slug: documento,
    title: `Título ${documento}`,
    blocks: paragraph(text),
    fields: { secao: "legal", documento_legal: documento, ordem },
  };
}

async function upsert(input: LegalPageWrite) {
  const result = await content.upsertLegalPage(input);
  if (!result.ok) throw new Error(`${result.code}: ${result.detail}`);
  return result;
}

async function stored(siteId: string, id: string) {
  return (await contentDbOf(siteId))
    .prepare("SELECT title, blocks_json, status, fields, revision, post_type FROM posts WHERE id = ?")
    .bind(id)
    .first<{
      title: string;
      blocks_json: string;
      status: string;
      fields: string;
      revision: number;
      post_type: string;
    }>();
}

describe("upsertLegalPage", () => {
  it("a new document is a draft page at /legal/<slug>, the index at /legal/; fields and generator hash stored", async () => {
    const t = await tenant();
    const doc = await upsert(write(t, "termos-de-uso"));
    expect(doc).toMatchObject({ resultado: "criada", adotada: false });
    expect(doc.page).toMatchObject({
      slug: "termos-de-uso",
      status: "draft",
      documento_legal: "termos-de-uso",
      ordem: 1,
      path: "/legal/termos-de-uso",
      url: `https://${t.site.primary_domain}/legal/termos-de-uso`,
    });
    const row = await stored(t.site.id, doc.page.post_id);
    expect(row).toMatchObject({ status: "draft", post_type: "page" });
    expect(JSON.parse(row!.fields)).toMatchObject({
      secao: "legal",
      documento_legal: "termos-de-uso",
      ordem: 1,
    });
    expect(JSON.parse(row!.fields).gerador_hash).toEqual(expect.any(String));

    const index = await upsert({
      ...write(t, "legal"),
      fields: { secao: "legal", documento_legal: "indice", ordem: 0 },
    });
    expect(index.page).toMatchObject({ path: "/legal/", url: `https://${t.site.primary_domain}/legal/` });
    // The authenticated listing shows the same url.
    const listed = (await (await call("GET", "/v1/posts?status=draft", { key: t.ck })).json()) as {
      items: { id: string; url: string }[];
    };
    expect(listed.items.find((i) => i.id === doc.page.post_id)?.url).toBe(doc.page.url);
  });

  it("generating again is idempotent: an untouched draft answers atualizada and nothing is rewritten", async () => {
    const t = await tenant();
    const first = await upsert(write(t, "politica-de-cookies"));
    const before = await stored(t.site.id, first.page.post_id);
    const again = await upsert(write(t, "politica-de-cookies"));
    expect(again).toMatchObject({
      resultado: "atualizada",
      adotada: false,
      page: { post_id: first.page.post_id },
    });
    expect(await stored(t.site.id, first.page.post_id)).toEqual(before);
  });

  it("an untouched generated draft is regenerated with the new text (atualizada)", async () => {
    const t = await tenant();
    const first = await upsert(write(t, "politica-de-cookies"));
    const again = await upsert(write(t, "politica-de-cookies", "Texto novo."));
    expect(again.resultado).toBe("atualizada");
    expect(JSON.parse((await stored(t.site.id, first.page.post_id))!.blocks_json)).toEqual(
      paragraph("Texto novo."),
    );
    // Still untouched after the rewrite: the hash follows the new text.
    expect((await upsert(write(t, "politica-de-cookies", "Mais novo."))).resultado).toBe("atualizada");
  });

  it("a generated draft edited by hand is preserved (existente_preservada, adotada) and stays so", async () => {
    const t = await tenant();
    const first = await upsert(write(t, "termos-de-uso"));
    const edit = await call("PATCH", `/v1/posts/${first.page.post_id}`, {
      key: t.ck,
      body: { blocks_json: paragraph("Meu texto.") },
    });
    expect(edit.status).toBe(200);
    const before = await stored(t.site.id, first.page.post_id);
    const again = await upsert(write(t, "termos-de-uso", "Outro texto."));
    expect(again).toMatchObject({ resultado: "existente_preservada", adotada: true });
    expect(await stored(t.site.id, first.page.post_id)).toEqual(before);
  });

  it("a hand-written draft page with the slug is adopted: text kept, only fields set (existente_preservada)", async () => {
    const t = await tenant();
    const own = await createPost(t.ck, {
      title: "Meus termos",
      slug: "termos-de-uso",
      post_type: "page",
      blocks_json: paragraph("Escrito à mão."),
    });
    const result = await upsert(write(t, "termos-de-uso"));
    expect(result).toMatchObject({
      resultado: "existente_preservada",
      adotada: true,
      page: { post_id: own.id },
    });
    const row = await stored(t.site.id, own.id);
    expect(row).toMatchObject({ title: "Meus termos", status: "draft" });
    expect(JSON.parse(row!.blocks_json)).toEqual(paragraph("Escrito à mão."));
    expect(JSON.parse(row!.fields)).toEqual({ secao: "legal", documento_legal: "termos-de-uso", ordem: 1 });
    // Adopted, not generated: it is preserved on every later run too.
    expect((await upsert(write(t, "termos-de-uso"))).resultado).toBe("existente_preservada");
  });

  it("a published page keeps its text and moves to /legal/ (existente_publicada): old URL purged, post.updated with the new one", async () => {
    const t = await tenant();
    const own = await createPost(t.ck, {
      title: "Privacidade",
      slug: "politica-de-privacidade",
      post_type: "page",
      status: "published",
      blocks_json: paragraph("Publicado."),
    });
    const result = await upsert(write(t, "politica-de-privacidade"));
    const newUrl = `https://${t.site.primary_domain}/legal/politica-de-privacidade`;
    expect(result).toMatchObject({
      resultado: "existente_publicada",
      adotada: true,
      page: { post_id: own.id, status: "published", url: newUrl },
    });
    expect(JSON.parse((await stored(t.site.id, own.id))!.blocks_json)).toEqual(paragraph("Publicado."));
    const detail = (await (
      await call("GET", "/v1/posts/politica-de-privacidade", { key: t.pk, origin: ORIGIN })
    ).json()) as { url: string };
    expect(detail.url).toBe(newUrl);
    expect(await recordedEffects(t.site.id, "cache_purge")).toEqual([
      { urls: [`https://${t.site.primary_domain}/politica-de-privacidade`] },
    ]);
    let events: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = await recordedEffects(t.site.id, "event:post.updated");
    }
    expect(events.map((e) => e.url)).toEqual([newUrl]);
    // Again: nothing left to change, nothing written.
    const revision = (await stored(t.site.id, own.id))!.revision;
    expect((await upsert(write(t, "politica-de-privacidade"))).resultado).toBe("existente_publicada");
    expect((await stored(t.site.id, own.id))!.revision).toBe(revision);
  });

  it("a plain edit of a published legal page announces post.updated at its /legal/ URL (the SQL rule)", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "T", slug: "termos-de-uso", post_type: "page", status: "published" });
    await upsert(write(t, "termos-de-uso"));
    const before = (await recordedEffects(t.site.id, "event:post.updated")).length;
    await call("PATCH", "/v1/posts/termos-de-uso", { key: t.ck, body: { title: "T2" } });
    let events: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && events.length <= before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = await recordedEffects(t.site.id, "event:post.updated");
    }
    expect(events.at(-1)?.url).toBe(`https://${t.site.primary_domain}/legal/termos-de-uso`);
  });

  it("a scheduled page is existente_publicada too", async () => {
    const t = await tenant();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const own = await createPost(t.ck, {
      title: "Em breve",
      slug: "termos-de-uso",
      post_type: "page",
      status: "scheduled",
      published_at: future,
    });
    expect(await upsert(write(t, "termos-de-uso"))).toMatchObject({
      resultado: "existente_publicada",
      page: { post_id: own.id, status: "scheduled" },
    });
  });

  it("refusals come back as data: a post (not a page) holding the slug, an invalid slug, an unknown site", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "Artigo", slug: "termos-de-uso" });
    const posts = await countRows("posts", t.site.id);
    const cases: [LegalPageWrite, string][] = [
      [write(t, "termos-de-uso"), "SLUG_TAKEN"],
      [{ ...write(t, "ok"), slug: "Not A Slug" }, "INVALID_SLUG"],
      [{ ...write(t, "ok"), site_id: newId() }, "NOT_FOUND"],
      [{ ...write(t, "ok"), title: "" }, "BAD_REQUEST"],
      [{ ...write(t, "ok"), blocks: { nope: 1 } as unknown as LegalPageWrite["blocks"] }, "INVALID_BLOCKS"],
    ];
    for (const [input, code] of cases) {
      const result: LegalPageResult = await content.upsertLegalPage(input);
      expect(result, code).toMatchObject({ ok: false, code });
    }
    expect(await countRows("posts", t.site.id)).toBe(posts);
  });

  it("20 concurrent generations of one document make one page", async () => {
    const t = await tenant();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => content.upsertLegalPage(write(t, "termos-de-uso"))),
    );
    const ids = new Set(results.map((r) => (r.ok ? r.page.post_id : r.code)));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.ok && r.resultado === "criada")).toHaveLength(1);
    expect(await countRows("posts", t.site.id)).toBe(1);
  });
});

describe("legalPages", () => {
  it("lists the site's legal pages in ordem, not archived ones nor other sites'", async () => {
    const t = await tenant();
    const other = await tenant();
    await upsert(write(other, "termos-de-uso"));
    await upsert(write(t, "termos-de-uso", "x", 2));
    await upsert(write(t, "politica-de-privacidade", "x", 1));
    const archived = await createPost(t.ck, {
      title: "Cookies",
      slug: "politica-de-cookies",
      post_type: "page",
      status: "published",
    });
    await upsert(write(t, "politica-de-cookies", "x", 3));
    expect((await content.legalPages({ site_id: t.site.id })).map((p) => p.documento_legal)).toEqual([
      "politica-de-privacidade",
      "termos-de-uso",
      "politica-de-cookies",
    ]);
    await call("POST", `/v1/posts/${archived.id}/unpublish`, { key: t.ck });
    expect((await content.legalPages({ site_id: t.site.id })).map((p) => p.documento_legal)).toEqual([
      "politica-de-privacidade",
      "termos-de-uso",
    ]);
    expect(await content.legalPages({ site_id: newId() })).toEqual([]);
  });
});
