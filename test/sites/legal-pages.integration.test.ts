/**
 * Spec "Legal pages": `GET /v1/sites/{id}/legal/catalogo` (saved case, query overrides, index first) and
 * `POST /v1/sites/{id}/legal/generate` (X-User-Id, the legal app, documents written as pages through the
 * real content worker; result kinds; the batch never aborts; the index lists only pages that exist).
 */
import { describe, expect, it } from "vitest";
import { type ContentRpc, type LegalPageWrite, rpc } from "../../src/lib/rpc";
import { generateLegalPages } from "../../src/sites/legal/legal-pages";
import { getSite } from "../../src/sites/site/store";
import { fetchSigned } from "../support/edge-signing";
import {
  api,
  type EdgeHeaders,
  makeSite,
  orgMember,
  type SiteBody,
  service,
  servicesFor,
  servicesWithContent,
  sitesEnv,
  storedRow,
} from "../support/sites-helpers";

const content = rpc<ContentRpc>(sitesEnv.CONTENT);

interface Entry {
  slug: string;
  title: string;
  ordem: number;
  path: string;
  is_index: boolean;
}

interface Item {
  slug: string;
  resultado: string;
  adotada?: boolean;
  status?: string;
  path: string;
  url?: string;
  post_id?: string;
  pendencias: string[];
  code?: string;
}

const catalogo = (siteId: string, headers: EdgeHeaders, query = "") =>
  api<Entry[]>("GET", `/api/v1/sites/${siteId}/legal/catalogo${query}`, { headers });

const generate = (siteId: string, headers: EdgeHeaders, body?: unknown) =>
  api<{ perfil: string; setor: string; items: Item[]; code?: string }>(
    "POST",
    `/api/v1/sites/${siteId}/legal/generate`,
    { headers, ...(body === undefined ? {} : { body }) },
  );

async function patchSettings(site: SiteBody, owner: EdgeHeaders, settings: Record<string, unknown>) {
  const res = await api<SiteBody>("PATCH", `/api/v1/sites/${site.id}`, {
    headers: owner,
    body: { settings },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A site with the legal app on (settings.applets.legal, as the applets route stores it) and `legal` saved. */
async function legalSite(legal: Record<string, unknown> = {}) {
  const made = await makeSite();
  const site = await patchSettings(made.site, made.owner, { applets: { legal: { enabled: true } }, legal });
  return { ...made, site };
}

/** A secret key of the site made through content's key administration (as the site's owner). */
async function contentKey(site: SiteBody, owner: EdgeHeaders): Promise<string> {
  const res = await fetchSigned(sitesEnv.CONTENT, `http://content.test/api/v1/sites/${site.id}/api-keys`, {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({ name: "editor", kind: "secret", scopes: ["posts:write", "posts:read"] }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

async function createPage(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await sitesEnv.CONTENT.fetch("http://content.test/v1/posts", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ post_type: "page", blocks_json: { blocks: [] }, ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const DEFAULT_SLUGS = ["legal", "politica-de-privacidade", "termos-de-uso", "politica-de-cookies"];

describe("GET /v1/sites/{id}/legal/catalogo", () => {
  it("without a saved case: empresa / geral, a bare array in index order (the index at /legal/ first); the app need not be on", async () => {
    const { site, owner } = await makeSite();
    const res = await catalogo(site.id, owner);
    expect(res.status, res.text).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((e) => e.slug)).toEqual(DEFAULT_SLUGS);
    expect(res.body[0]).toMatchObject({ slug: "legal", path: "/legal/", ordem: 0, is_index: true });
    expect(res.body[1]).toMatchObject({ path: "/legal/politica-de-privacidade", ordem: 1, is_index: false });
    expect(res.body.map((e) => e.ordem)).toEqual([...res.body.map((e) => e.ordem)].sort((a, b) => a - b));
  });

  it("uses the SAVED perfil and setor", async () => {
    const { site, owner } = await legalSite({ perfil: "pessoa_fisica", setor: "ecommerce" });
    const res = await catalogo(site.id, owner);
    expect(res.body.map((e) => e.slug)).toEqual([...DEFAULT_SLUGS, "politica-de-trocas-e-devolucoes"]);
  });

  it("query perfil and setor override the saved case, each on its own", async () => {
    const { site, owner } = await legalSite({ perfil: "empresa", setor: "ecommerce" });
    expect((await catalogo(site.id, owner, "?setor=saude")).body.map((e) => e.slug)).toEqual([
      ...DEFAULT_SLUGS,
      "aviso-sobre-dados-de-saude",
    ]);
    expect((await catalogo(site.id, owner, "?perfil=pessoa_fisica")).body.at(-1)?.slug).toBe(
      "politica-de-trocas-e-devolucoes",
    );
    for (const [setor, slug] of [
      ["educacao", "dados-de-criancas-e-adolescentes"],
      ["servicos", "termos-de-contratacao-de-servicos"],
    ]) {
      expect((await catalogo(site.id, owner, `?setor=${setor}`)).body.at(-1)?.slug).toBe(slug);
    }
    expect((await catalogo(site.id, owner, "?setor=geral")).body.map((e) => e.slug)).toEqual(DEFAULT_SLUGS);
  });

  it("an unknown perfil or setor is 400 LEGAL_INVALID_CASE", async () => {
    const { site, owner } = await makeSite();
    for (const query of ["?perfil=governo", "?setor=mineracao", "?perfil=", "?setor=ECOMMERCE"]) {
      const res = await catalogo(site.id, owner, query);
      expect(res.status, query).toBe(400);
      expect((res.body as unknown as { code: string }).code).toBe("LEGAL_INVALID_CASE");
    }
  });

  it("a saved case that is no longer valid (legacy data) is 400 LEGAL_INVALID_CASE, a query override of it answers", async () => {
    const { site, owner } = await makeSite();
    await sitesEnv.DB.prepare("UPDATE sites SET settings = ? WHERE id = ?")
      .bind(JSON.stringify({ legal: { setor: "antigo" } }), site.id)
      .run();
    expect((await catalogo(site.id, owner)).status).toBe(400);
    expect((await catalogo(site.id, owner, "?setor=geral")).status).toBe(200);
  });

  it("a non-id segment is 400 BAD_REQUEST", async () => {
    const { owner } = await makeSite();
    const res = await catalogo("not-an-id", owner);
    expect(res.status).toBe(400);
    expect((res.body as unknown as { code: string }).code).toBe("BAD_REQUEST");
  });
});

describe("POST /v1/sites/{id}/legal/generate: refusals", () => {
  it("without X-User-Id: 401 UNAUTHENTICATED (a service caller too), before the app check", async () => {
    const { site, owner } = await makeSite();
    const { "x-user-id": _user, ...noUser } = owner;
    for (const headers of [noUser, service]) {
      const res = await generate(site.id, headers, {});
      expect(res.status, res.text).toBe(401);
      expect(res.body.code).toBe("UNAUTHENTICATED");
    }
  });

  it("a member without the legal permission: 403 FORBIDDEN before the X-User-Id check", async () => {
    const { site, orgId } = await makeSite();
    const { "x-user-id": _user, ...noUser } = orgMember(orgId, "org_member");
    const res = await generate(site.id, noUser, {});
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });

  it("the legal app off: 409 APPLET_DISABLED, nothing written", async () => {
    const { site, owner } = await makeSite();
    await patchSettings(site, owner, { applets: { legal: { enabled: false } } });
    const before = await storedRow(site.id);
    const res = await generate(site.id, owner, {});
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("APPLET_DISABLED");
    expect(await content.legalPages({ site_id: site.id })).toEqual([]);
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("an unknown document slug: 400 LEGAL_UNKNOWN_DOC before anything is written (also a slug of another case)", async () => {
    const { site, owner } = await legalSite({ setor: "geral" });
    for (const documentos of [["termos-de-uso", "nao-existe"], ["politica-de-trocas-e-devolucoes"]]) {
      const res = await generate(site.id, owner, { documentos });
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe("LEGAL_UNKNOWN_DOC");
    }
    expect(await content.legalPages({ site_id: site.id })).toEqual([]);
  });

  it("an invalid body is 400 BAD_REQUEST", async () => {
    const { site, owner } = await legalSite();
    for (const body of [{ documentos: "termos-de-uso" }, { documentos: [] }, { outra: 1 }, [1]]) {
      const res = await generate(site.id, owner, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    }
  });
});

describe("POST /v1/sites/{id}/legal/generate", () => {
  it("writes every document of the case as a draft page under /legal/, one result per document in catalog order", async () => {
    const { site, owner } = await legalSite({
      perfil: "empresa",
      setor: "ecommerce",
      razao_social: "Acme Ltda",
    });
    const res = await generate(site.id, owner);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ perfil: "empresa", setor: "ecommerce" });
    expect(res.body.items.map((i) => i.slug)).toEqual([...DEFAULT_SLUGS, "politica-de-trocas-e-devolucoes"]);
    for (const item of res.body.items) {
      expect(item, item.slug).toMatchObject({ resultado: "criada", adotada: false, status: "draft" });
    }
    expect(res.body.items[0]).toMatchObject({
      path: "/legal/",
      url: `https://${site.canonical_host}/legal/`,
    });
    expect(res.body.items[2]).toMatchObject({
      path: "/legal/termos-de-uso",
      url: `https://${site.canonical_host}/legal/termos-de-uso`,
    });
    // Pending items: what the site could not fill (its name and address it could, the saved razão social too).
    const privacy = res.body.items[1]!;
    expect(privacy.pendencias).toEqual(expect.arrayContaining(["[CNPJ]", "[E-MAIL DO ENCARREGADO]"]));
    expect(privacy.pendencias).not.toContain("[RAZÃO SOCIAL]");
    expect(privacy.pendencias).not.toContain("[NOME DO SITE]");
    const pages = await content.legalPages({ site_id: site.id });
    expect(pages.map((p) => [p.documento_legal, p.status, p.path])).toEqual([
      ["indice", "draft", "/legal/"],
      ["politica-de-privacidade", "draft", "/legal/politica-de-privacidade"],
      ["termos-de-uso", "draft", "/legal/termos-de-uso"],
      ["politica-de-cookies", "draft", "/legal/politica-de-cookies"],
      ["politica-de-trocas-e-devolucoes", "draft", "/legal/politica-de-trocas-e-devolucoes"],
    ]);
  });

  it("generating again is idempotent: untouched drafts answer atualizada, the same pages, nothing duplicated", async () => {
    const { site, owner } = await legalSite();
    const first = await generate(site.id, owner, {});
    const pagesBefore = await content.legalPages({ site_id: site.id });
    const again = await generate(site.id, owner, {});
    expect(again.status).toBe(200);
    expect(again.body.items.map((i) => i.resultado)).toEqual(DEFAULT_SLUGS.map(() => "atualizada"));
    expect(again.body.items.map((i) => i.post_id)).toEqual(first.body.items.map((i) => i.post_id));
    expect(await content.legalPages({ site_id: site.id })).toEqual(pagesBefore);
  });

  it("published, scheduled and hand-written pages are kept: existente_publicada (adotada, pendencias) and existente_preservada", async () => {
    const { site, owner } = await legalSite();
    const key = await contentKey(site, owner);
    const published = await createPage(key, {
      title: "Nossa privacidade",
      slug: "politica-de-privacidade",
      status: "published",
    });
    const scheduled = await createPage(key, {
      title: "Termos",
      slug: "termos-de-uso",
      status: "scheduled",
      published_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const handWritten = await createPage(key, { title: "Cookies", slug: "politica-de-cookies" });
    const res = await generate(site.id, owner, {});
    expect(res.status, res.text).toBe(200);
    const [index, privacy, terms, cookies] = res.body.items;
    expect(index).toMatchObject({ resultado: "criada" });
    expect(privacy).toMatchObject({
      resultado: "existente_publicada",
      adotada: true,
      post_id: published,
      status: "published",
      url: `https://${site.canonical_host}/legal/politica-de-privacidade`,
    });
    expect(privacy!.pendencias.length).toBeGreaterThan(0);
    expect(terms).toMatchObject({ resultado: "existente_publicada", adotada: true, post_id: scheduled });
    expect(cookies).toMatchObject({ resultado: "existente_preservada", adotada: true, post_id: handWritten });
    // The owner's titles stay; the index links them.
    const pages = await content.legalPages({ site_id: site.id });
    expect(pages.find((p) => p.post_id === published)?.title).toBe("Nossa privacidade");
  });

  it("selects documents by slug: only those are written, and the index (always rewritten) lists only pages that exist", async () => {
    const { site, owner } = await legalSite();
    const seen: LegalPageWrite[] = [];
    const res = await generateWith(site.id, owner["x-user-id"]!, { documentos: ["termos-de-uso"] }, seen);
    expect(res.items.map((i) => [i.slug, i.resultado])).toEqual([
      ["legal", "criada"],
      ["termos-de-uso", "criada"],
    ]);
    expect(seen.map((w) => w.slug)).toEqual(["termos-de-uso", "legal"]);
    expect(indexLinks(seen.at(-1)!)).toEqual(["/legal/termos-de-uso"]);
  });

  it("the batch never aborts: a document whose write fails is an error result, the others are written, the index leaves it out", async () => {
    const { site, owner } = await legalSite();
    const seen: LegalPageWrite[] = [];
    const res = await generateWith(site.id, owner["x-user-id"]!, {}, seen, "termos-de-uso");
    expect(res.items.map((i) => [i.slug, i.resultado])).toEqual([
      ["legal", "criada"],
      ["politica-de-privacidade", "criada"],
      ["termos-de-uso", "erro"],
      ["politica-de-cookies", "criada"],
    ]);
    expect(res.items[2]).toMatchObject({ code: "CONTENT_UNAVAILABLE" });
    expect(indexLinks(seen.at(-1)!)).toEqual([
      "/legal/politica-de-privacidade",
      "/legal/politica-de-cookies",
    ]);
    expect((await content.legalPages({ site_id: site.id })).map((p) => p.documento_legal)).toEqual([
      "indice",
      "politica-de-privacidade",
      "politica-de-cookies",
    ]);
  });

  it("a refusal of content (a post that is not a page holds the slug) is an error result with content's code", async () => {
    const { site, owner } = await legalSite();
    const key = await contentKey(site, owner);
    await createPage(key, { title: "Artigo", slug: "termos-de-uso", post_type: "post" });
    const res = await generate(site.id, owner, {});
    expect(res.status).toBe(200);
    expect(res.body.items[2]).toMatchObject({ slug: "termos-de-uso", resultado: "erro", code: "SLUG_TAKEN" });
    expect(res.body.items.filter((i) => i.resultado === "criada")).toHaveLength(3);
  });
});

/** Calls the generation directly with content wrapped: every write recorded, `failing` thrown for. */
async function generateWith(
  siteId: string,
  userId: string,
  body: { documentos?: string[] },
  seen: LegalPageWrite[],
  failing?: string,
) {
  const real = servicesFor();
  const services = servicesWithContent({
    upsertLegalPage: async (input: LegalPageWrite) => {
      seen.push(input);
      if (input.slug === failing) throw new Error("content down");
      return real.content.upsertLegalPage(input);
    },
  });
  const site = await getSite(sitesEnv.DB, siteId);
  return generateLegalPages(sitesEnv, services, site!, userId, body);
}

function indexLinks(write: LegalPageWrite): string[] {
  const list = write.blocks.blocks.find((b) => (b as { type: string }).type === "list") as
    | { data: { items: string[] } }
    | undefined;
  return (list?.data.items ?? []).map((item) => /href="([^"]+)"/.exec(item)![1]!);
}
