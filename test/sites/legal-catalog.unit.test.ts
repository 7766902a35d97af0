/** The legal document catalog: selection by case, the texts' placeholders, filling from the site, rendering. */
import { describe, expect, it } from "vitest";
import { DEFAULT_CASE, type LegalCase, PERFIS, SETORES } from "../../src/sites/legal/cases";
import { catalogFor, INDEX_SLUG } from "../../src/sites/legal/catalog";
import { legalCaseOf } from "../../src/sites/legal/legal-pages";
import type { SiteFacts } from "../../src/sites/legal/placeholders";
import { renderDocument, renderIndex } from "../../src/sites/legal/render";
import { validateSettings } from "../../src/sites/site/settings/validate-settings";

const ALL_CASES: LegalCase[] = PERFIS.flatMap((perfil) => SETORES.map((setor) => ({ perfil, setor })));

const noFacts: SiteFacts = { name: "Loja Exemplo", url: "https://loja.example.com", legal: {} };
const allFacts: SiteFacts = {
  ...noFacts,
  legal: {
    razao_social: "Exemplo Comércio Ltda",
    cnpj: "12.345.678/0001-90",
    nome_responsavel: "Maria Silva",
    endereco: "Rua A, 1, São Paulo/SP",
    email_contato: "contato@example.com",
    encarregado_nome: "João Souza",
    encarregado_email: "dpo@example.com",
    foro: "São Paulo/SP",
  },
};

/** Placeholders only the owner can fill in the page itself (no settings key for them). */
const DOCUMENT_SPECIFIC = new Set([
  "[CONDIÇÕES DE TROCA POR CORTESIA]",
  "[PRAZO DE REEMBOLSO EM DIAS]",
  "[NOME E REGISTRO PROFISSIONAL DO RESPONSÁVEL TÉCNICO]",
  "[CONDIÇÕES DE PAGAMENTO]",
  "[CONDIÇÕES DE CANCELAMENTO]",
]);

function text(c: LegalCase, slug: string, facts = noFacts): string {
  const document = catalogFor(c).find((d) => d.slug === slug)!;
  return JSON.stringify(renderDocument(document, c, facts).blocks);
}

describe("catalog by case", () => {
  it("every case: the index first, unique slugs, ordem ascending, privacy, terms and cookies always", () => {
    for (const c of ALL_CASES) {
      const catalog = catalogFor(c);
      expect(catalog[0]!.slug).toBe(INDEX_SLUG);
      expect(new Set(catalog.map((d) => d.slug)).size).toBe(catalog.length);
      expect(catalog.map((d) => d.ordem)).toEqual([...catalog.map((d) => d.ordem)].sort((a, b) => a - b));
      expect(catalog.map((d) => d.slug)).toEqual(
        expect.arrayContaining(["politica-de-privacidade", "termos-de-uso", "politica-de-cookies"]),
      );
    }
  });

  it("sector documents: returns for e-commerce, health data for health, children's data for education, service terms for services", () => {
    const last = (setor: LegalCase["setor"]) => catalogFor({ perfil: "empresa", setor }).at(-1)!.slug;
    expect(last("ecommerce")).toBe("politica-de-trocas-e-devolucoes");
    expect(last("saude")).toBe("aviso-sobre-dados-de-saude");
    expect(last("educacao")).toBe("dados-de-criancas-e-adolescentes");
    expect(last("servicos")).toBe("termos-de-contratacao-de-servicos");
    expect(last("geral")).toBe("politica-de-cookies");
  });

  it("the saved case, its defaults (empresa, geral) and overrides", () => {
    expect(legalCaseOf({})).toEqual(DEFAULT_CASE);
    expect(DEFAULT_CASE).toEqual({ perfil: "empresa", setor: "geral" });
    expect(legalCaseOf({ legal: { perfil: "pessoa_fisica" } })).toEqual({
      perfil: "pessoa_fisica",
      setor: "geral",
    });
    expect(legalCaseOf({ legal: { setor: "saude" } }, { setor: "educacao" })).toEqual({
      perfil: "empresa",
      setor: "educacao",
    });
    expect(() => legalCaseOf({}, { perfil: "orgao_publico" })).toThrow();
  });
});

describe("texts and placeholders", () => {
  it("every document of every case has content; with the owner data saved only document-specific placeholders remain", () => {
    for (const c of ALL_CASES) {
      for (const document of catalogFor(c).slice(1)) {
        const rendered = renderDocument(document, c, allFacts);
        expect(rendered.blocks.blocks.length, document.slug).toBeGreaterThan(5);
        for (const p of rendered.pendencias)
          expect(DOCUMENT_SPECIFIC.has(p), `${document.slug}: ${p}`).toBe(true);
      }
    }
  });

  it("the site's name and address are always filled; nothing saved leaves the owner's data as pending items", () => {
    const c: LegalCase = { perfil: "empresa", setor: "geral" };
    const privacy = renderDocument(catalogFor(c)[1]!, c, noFacts);
    expect(JSON.stringify(privacy.blocks)).toContain("Loja Exemplo");
    expect(JSON.stringify(privacy.blocks)).toContain("https://loja.example.com");
    expect(privacy.pendencias).toEqual(
      expect.arrayContaining([
        "[RAZÃO SOCIAL]",
        "[CNPJ]",
        "[NOME DO ENCARREGADO]",
        "[E-MAIL DO ENCARREGADO]",
      ]),
    );
    expect(privacy.pendencias).not.toContain("[NOME DO SITE]");
  });

  it("perfil: a company names razão social, CNPJ and its encarregado; a natural person its name and a contact channel, no CNPJ", () => {
    const empresa = text({ perfil: "empresa", setor: "geral" }, "politica-de-privacidade");
    expect(empresa).toContain("[CNPJ]");
    expect(empresa).toContain("[E-MAIL DO ENCARREGADO]");
    const pf = text({ perfil: "pessoa_fisica", setor: "geral" }, "politica-de-privacidade");
    expect(pf).not.toContain("[CNPJ]");
    expect(pf).toContain("[NOME COMPLETO DO RESPONSÁVEL]");
    expect(pf).toContain("Resolução CD/ANPD nº 2/2022");
  });

  it("the texts cite their law: LGPD rights (art. 18), CDC art. 49 for returns, LGPD art. 11 for health, art. 14 for children", () => {
    expect(text(DEFAULT_CASE, "politica-de-privacidade")).toContain("art. 18 da LGPD");
    expect(text({ perfil: "empresa", setor: "ecommerce" }, "politica-de-trocas-e-devolucoes")).toContain(
      "art. 49 do Código de Defesa do Consumidor",
    );
    expect(text({ perfil: "empresa", setor: "saude" }, "aviso-sobre-dados-de-saude")).toContain("art. 11");
    expect(text({ perfil: "empresa", setor: "educacao" }, "dados-de-criancas-e-adolescentes")).toContain(
      "art. 14 da LGPD",
    );
  });

  it("a filled value is escaped (the text is inline HTML)", () => {
    const facts = { ...noFacts, legal: { razao_social: 'A <script>"x"</script> & Cia' } };
    const rendered = text(DEFAULT_CASE, "politica-de-privacidade", facts);
    expect(rendered).not.toContain("<script>");
    expect(rendered).toContain("A &lt;script&gt;&quot;x&quot;&lt;/script&gt; &amp; Cia");
  });

  it("rendering is deterministic (what makes a regenerated untouched page identical)", () => {
    for (const c of ALL_CASES) {
      for (const document of catalogFor(c).slice(1)) {
        expect(renderDocument(document, c, allFacts)).toEqual(renderDocument(document, c, allFacts));
      }
    }
  });

  it("the index links the pages given, in order, with escaped titles", () => {
    const index = catalogFor(DEFAULT_CASE)[0]!;
    const rendered = renderIndex(index, [{ title: "Termos <b>", path: "/legal/termos-de-uso" }], noFacts);
    expect(rendered.blocks.blocks[1]).toMatchObject({
      type: "list",
      data: { items: ['<a href="/legal/termos-de-uso">Termos &lt;b&gt;</a>'] },
    });
    expect(renderIndex(index, [], noFacts).blocks.blocks).toHaveLength(1);
  });
});

describe("settings.legal in the settings validator", () => {
  it("a valid case and owner data pass unchanged; other keys only as stored before the schema (issue 31)", () => {
    const legal = { perfil: "pessoa_fisica", setor: "servicos", email_contato: "a@b.c" };
    expect(validateSettings({ legal })).toEqual({ ok: true, settings: { legal } });
    expect(validateSettings({ legal: { perfil: null } }).ok).toBe(true);
    const older = { legal: { ...legal, extra: 1 } };
    expect(validateSettings(older)).toMatchObject({
      ok: false,
      violation: { code: "SETTINGS_UNKNOWN_KEY", path: "settings.legal.extra" },
    });
    expect(validateSettings(older, older)).toEqual({ ok: true, settings: older });
  });

  it("refuses with SETTINGS_INVALID_LEGAL and the full path", () => {
    const result = validateSettings({ legal: { setor: "varejo" } });
    expect(result).toMatchObject({
      ok: false,
      violation: { code: "SETTINGS_INVALID_LEGAL", path: "settings.legal.setor" },
    });
    expect(validateSettings({ legal: { foro: "x".repeat(300) } }).ok).toBe(true);
    expect(validateSettings({ legal: { foro: "x".repeat(301) } }).ok).toBe(false);
  });
});
