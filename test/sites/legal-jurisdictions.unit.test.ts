/** The legal sets of each jurisdiction (issue 23 item 7): slugs, languages, placeholders and filling. */
import { describe, expect, it } from "vitest";
import { type LegalCase, PERFIS, SETORES } from "../../src/sites/legal/cases";
import { catalogFor, INDEX_SLUG, JURISDICTIONS } from "../../src/sites/legal/catalog";
import { pendingItems, type SiteFacts } from "../../src/sites/legal/placeholders";
import { renderDocument, renderIndex } from "../../src/sites/legal/render";

const CASES: LegalCase[] = PERFIS.flatMap((perfil) => SETORES.map((setor) => ({ perfil, setor })));
const facts: SiteFacts = {
  name: "Acme",
  url: "https://acme.example.com",
  legal: {
    razao_social: "Acme Ltd",
    registration_number: "01234567",
    nome_responsavel: "Jane Doe",
    endereco: "1 High Street, London",
    email_contato: "privacy@acme.example",
    encarregado_nome: "John Roe",
    encarregado_email: "dpo@acme.example",
    foro: "England and Wales",
    governing_law: "England and Wales",
    representative: "Acme EU Rep BV, Amsterdam",
    toll_free_number: "+1 800 555 0100",
  },
};
/** Placeholders only the owner can fill in the page itself (no settings key for them). */
const DOCUMENT_SPECIFIC = new Set(["[RETENTION PERIOD]", "[HAVE NOT OR HAVE]"]);

const SLUGS: Record<string, string[]> = {
  eu: ["legal", "privacy-policy", "terms-of-use", "cookie-policy"],
  uk: ["legal", "privacy-policy", "terms-of-use", "cookie-policy"],
  "us-ca": ["legal", "privacy-policy", "terms-of-use", "cookie-policy", "do-not-sell-or-share"],
};

describe("the English sets", () => {
  for (const jurisdiction of ["eu", "uk", "us-ca"] as const) {
    it(`${jurisdiction}: the same slugs for every case, in English but for the index's translation`, () => {
      for (const c of CASES) {
        for (const language of ["en", "pt-BR", "de", undefined]) {
          const catalog = catalogFor(c, jurisdiction, language);
          expect(catalog.map((d) => d.slug)).toEqual(SLUGS[jurisdiction]);
          expect(catalog.slice(1).every((d) => d.language === "en")).toBe(true);
          expect(catalog[0]!.language).toBe(language === "pt-BR" ? "pt" : "en");
        }
      }
    });

    it(`${jurisdiction}: every placeholder the settings can fill is filled; no Portuguese placeholder`, () => {
      for (const c of CASES) {
        for (const d of catalogFor(c, jurisdiction, "en").filter((x) => x.slug !== INDEX_SLUG)) {
          const rendered = renderDocument(d, c, facts);
          expect(
            rendered.pendencias.filter((p) => !DOCUMENT_SPECIFIC.has(p)),
            `${d.slug}`,
          ).toEqual([]);
          const bare = renderDocument(d, c, { ...facts, legal: {} });
          expect(bare.pendencias.length, d.slug).toBeGreaterThan(0);
          for (const p of bare.pendencias) expect(p, d.slug).toMatch(/^\[[A-Z0-9 /,.-]+\]$/);
        }
      }
    });
  }

  it("the UK notice names the ICO and the UK GDPR; the EU one the GDPR and no ICO", () => {
    const c: LegalCase = { perfil: "empresa", setor: "geral" };
    const text = (j: "eu" | "uk") => JSON.stringify(renderDocument(catalogFor(c, j)[1]!, c, facts).blocks);
    expect(text("uk")).toContain("Information Commissioner");
    expect(text("uk")).toContain("UK General Data Protection Regulation");
    expect(text("eu")).toContain("Regulation (EU) 2016/679");
    expect(text("eu")).not.toContain("Information Commissioner");
  });

  it("the index speaks the language of its set or the site's, and fills the site's name", () => {
    const c: LegalCase = { perfil: "empresa", setor: "geral" };
    const en = catalogFor(c, "us-ca", "en")[0]!;
    expect(JSON.stringify(renderIndex(en, [], facts).blocks)).toContain("legal documents of Acme");
    const pt = catalogFor(c, "br", "pt-BR")[0]!;
    expect(JSON.stringify(renderIndex(pt, [], facts).blocks)).toContain("documentos legais do site Acme");
    expect(catalogFor(c, "br", "en")[0]!.title).toBe("Legal information");
  });

  it("br keeps the spec's documents; only the translated ones change language", () => {
    for (const c of CASES) {
      const pt = catalogFor(c, "br", "pt");
      const en = catalogFor(c, "br", "en");
      expect(en.map((d) => d.slug)).toEqual(pt.map((d) => d.slug));
      expect(catalogFor(c).map((d) => d.slug)).toEqual(pt.map((d) => d.slug));
      expect(en.filter((d) => d.language === "en").map((d) => d.slug)).toEqual([
        "legal",
        "politica-de-cookies",
      ]);
      const cookies = en.find((d) => d.slug === "politica-de-cookies")!;
      const bare = { ...facts, legal: {} };
      expect(pendingItems([JSON.stringify(renderDocument(cookies, c, bare).blocks)])).toEqual([
        "[E-MAIL DE CONTATO]",
      ]);
    }
  });

  it("lists exactly the four jurisdictions", () => {
    expect([...JURISDICTIONS]).toEqual(["br", "eu", "uk", "us-ca"]);
  });
});
