/**
 * The legal document catalog: which documents a site's case gets, in index order. The legal index
 * (`/legal/`) comes first, then the documents by `ordem`. Slugs are the pages' slugs (`/legal/<slug>`).
 * Each jurisdiction (`settings.legal.jurisdiction`) has its own set (README "Legal pages" lists the
 * slugs): `br` (the spec's LGPD/CDC documents, in Portuguese, chosen by `setor`), `eu` and `uk` (GDPR and
 * UK GDPR, in English), `us-ca` (CCPA/CPRA, in English). The site's language picks a document's text
 * where a translation exists; otherwise the text is in the jurisdiction's own language.
 */
import type { LegalCase, Setor } from "./cases";
import { politicaDeCookies } from "./texts/cookies";
import { brazilCookiePolicyEn } from "./texts/en/brazil";
import { californiaPrivacyPolicy, doNotSellOrShare } from "./texts/en/ccpa";
import { cookiePolicyEn, privacyNotice, termsOfUseEn } from "./texts/en/gdpr";
import { politicaDePrivacidade } from "./texts/privacidade";
import type { LegalText } from "./texts/sections";
import { avisoDadosDeSaude, dadosDeCriancas, politicaDeTrocas, termosDeServicos } from "./texts/setores";
import { termosDeUso } from "./texts/termos";

/** The index's slug (its page is `/legal/`) and its `fields.documento_legal`. */
export const INDEX_SLUG = "legal";
export const INDEX_DOCUMENT = "indice";

export const JURISDICTIONS = ["br", "eu", "uk", "us-ca"] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];
export const DEFAULT_JURISDICTION: Jurisdiction = "br";

export function isJurisdiction(value: unknown): value is Jurisdiction {
  return typeof value === "string" && (JURISDICTIONS as readonly string[]).includes(value);
}

/** Languages the documents are written in. */
export type LegalLanguage = "pt" | "en";

export interface LegalDocument {
  slug: string;
  title: string;
  ordem: number;
  summary: string;
  /** Sectors that get it; all when absent. */
  setores?: readonly Setor[];
  /** The text; absent for the index (made from the pages that exist). */
  text?: LegalText;
  /** The index's opening paragraph (placeholders allowed). */
  intro?: string;
  /** The language of this version. */
  language?: LegalLanguage;
}

type Version = Pick<LegalDocument, "title" | "summary" | "text" | "intro">;

/** A document with its translations; `language` is the one it is written in first. */
interface CatalogDocument {
  slug: string;
  ordem: number;
  setores?: readonly Setor[];
  language: LegalLanguage;
  versions: Partial<Record<LegalLanguage, Version>>;
}

const INDEX_VERSIONS: Partial<Record<LegalLanguage, Version>> = {
  pt: {
    title: "Informações legais",
    summary: "Índice dos documentos legais do site.",
    intro:
      "Nesta seção estão os documentos legais do site [NOME DO SITE]: como tratamos os seus dados pessoais, as regras de uso do site e os demais termos aplicáveis.",
  },
  en: {
    title: "Legal information",
    summary: "Index of the site's legal documents.",
    intro:
      "This section holds the legal documents of [SITE NAME]: how we handle your personal data, the rules for using the site and the other terms that apply.",
  },
};

function english(
  slug: string,
  ordem: number,
  title: string,
  summary: string,
  text: LegalText,
): CatalogDocument {
  return { slug, ordem, language: "en", versions: { en: { title, summary, text } } };
}

function gdprSet(regime: "eu" | "uk"): readonly CatalogDocument[] {
  const law = regime === "eu" ? "GDPR" : "UK GDPR and Data Protection Act 2018";
  return [
    english(
      "privacy-policy",
      1,
      "Privacy Policy",
      `How personal data is processed (${law}).`,
      privacyNotice(regime),
    ),
    english("terms-of-use", 2, "Terms of Use", "Rules for using the site.", termsOfUseEn(regime)),
    english(
      "cookie-policy",
      3,
      "Cookie Policy",
      "Which cookies the site uses and how to manage them.",
      cookiePolicyEn(regime),
    ),
  ];
}

const CALIFORNIA: readonly CatalogDocument[] = [
  english(
    "privacy-policy",
    1,
    "Privacy Policy",
    "Personal information collected, its use and California residents' rights (CCPA/CPRA); notice at collection.",
    californiaPrivacyPolicy,
  ),
  english("terms-of-use", 2, "Terms of Use", "Rules for using the site.", termsOfUseEn("us-ca")),
  english(
    "cookie-policy",
    3,
    "Cookie Policy",
    "Which cookies the site uses and how to opt out.",
    cookiePolicyEn("us-ca"),
  ),
  english(
    "do-not-sell-or-share",
    4,
    "Do Not Sell or Share My Personal Information",
    "How to opt out of the sale or sharing of personal information (CCPA § 1798.120).",
    doNotSellOrShare,
  ),
];

function portuguese(d: LegalDocument, en?: Version): CatalogDocument {
  const { slug, ordem, setores, title, summary, text } = d;
  return {
    slug,
    ordem,
    ...(setores ? { setores } : {}),
    language: "pt",
    versions: { pt: { title, summary, ...(text ? { text } : {}) }, ...(en ? { en } : {}) },
  };
}

const BRAZIL_DOCUMENTS: readonly LegalDocument[] = [
  {
    slug: "politica-de-privacidade",
    title: "Política de Privacidade",
    ordem: 1,
    summary: "Como os dados pessoais são tratados (LGPD).",
    text: politicaDePrivacidade,
  },
  {
    slug: "termos-de-uso",
    title: "Termos de Uso",
    ordem: 2,
    summary: "Regras de uso do site.",
    text: termosDeUso,
  },
  {
    slug: "politica-de-cookies",
    title: "Política de Cookies",
    ordem: 3,
    summary: "Quais cookies o site usa e como gerenciá-los.",
    text: politicaDeCookies,
  },
  {
    slug: "politica-de-trocas-e-devolucoes",
    title: "Política de Trocas e Devoluções",
    ordem: 4,
    summary: "Direito de arrependimento (CDC art. 49), defeitos, trocas e reembolso.",
    setores: ["ecommerce"],
    text: politicaDeTrocas,
  },
  {
    slug: "aviso-sobre-dados-de-saude",
    title: "Aviso sobre Tratamento de Dados de Saúde",
    ordem: 4,
    summary: "Como dados sensíveis de saúde são tratados (LGPD art. 11).",
    setores: ["saude"],
    text: avisoDadosDeSaude,
  },
  {
    slug: "dados-de-criancas-e-adolescentes",
    title: "Política de Dados de Crianças e Adolescentes",
    ordem: 4,
    summary: "Tratamento de dados de alunos menores de idade (LGPD art. 14).",
    setores: ["educacao"],
    text: dadosDeCriancas,
  },
  {
    slug: "termos-de-contratacao-de-servicos",
    title: "Termos de Contratação de Serviços",
    ordem: 4,
    summary: "Orçamento, pagamento, cancelamento e garantia dos serviços.",
    setores: ["servicos"],
    text: termosDeServicos,
  },
];

const BRAZIL: readonly CatalogDocument[] = BRAZIL_DOCUMENTS.map((d) =>
  d.slug === "politica-de-cookies"
    ? portuguese(d, {
        title: "Cookie Policy",
        summary: "Which cookies the site uses and how to manage them.",
        text: brazilCookiePolicyEn,
      })
    : portuguese(d),
);

const SETS: Record<Jurisdiction, readonly CatalogDocument[]> = {
  br: BRAZIL,
  eu: gdprSet("eu"),
  uk: gdprSet("uk"),
  "us-ca": CALIFORNIA,
};

const INDEX: CatalogDocument = { slug: INDEX_SLUG, ordem: 0, language: "pt", versions: INDEX_VERSIONS };

/** The primary subtag of a language tag (`pt-BR` -> `pt`), lower-cased. */
function primaryLanguage(tag: string | undefined): string {
  return (tag ?? "").split("-")[0]!.toLowerCase();
}

/** The version in the site's language when a translation exists, else in the set's own language. */
function localized(
  d: CatalogDocument,
  setLanguage: LegalLanguage,
  siteLanguage: string | undefined,
): LegalDocument {
  const wanted = primaryLanguage(siteLanguage) as LegalLanguage;
  const language = d.versions[wanted] ? wanted : d.versions[setLanguage] ? setLanguage : d.language;
  const version = d.versions[language]!;
  return {
    slug: d.slug,
    ordem: d.ordem,
    ...(d.setores ? { setores: d.setores } : {}),
    ...version,
    language,
  };
}

/** The language a jurisdiction's documents are written in. */
export function jurisdictionLanguage(jurisdiction: Jurisdiction): LegalLanguage {
  return jurisdiction === "br" ? "pt" : "en";
}

/**
 * The documents of a case, in index order: the index first, then by `ordem`. `jurisdiction` picks the
 * set (default `br`), `siteLanguage` (a language tag) the translation where one exists.
 */
export function catalogFor(
  legalCase: LegalCase,
  jurisdiction: Jurisdiction = DEFAULT_JURISDICTION,
  siteLanguage?: string,
): LegalDocument[] {
  const own = jurisdictionLanguage(jurisdiction);
  const documents = SETS[jurisdiction].filter((d) => !d.setores || d.setores.includes(legalCase.setor));
  return [INDEX, ...[...documents].sort((a, b) => a.ordem - b.ordem)].map((d) =>
    localized(d, own, siteLanguage),
  );
}

/** Every slug of a jurisdiction's set, whatever the sector (the index lists only pages of the set). */
export function jurisdictionSlugs(jurisdiction: Jurisdiction): Set<string> {
  return new Set(SETS[jurisdiction].map((d) => d.slug));
}

/** The page path of a catalog document. */
export function documentPath(document: Pick<LegalDocument, "slug">): string {
  return document.slug === INDEX_SLUG ? "/legal/" : `/legal/${document.slug}`;
}
