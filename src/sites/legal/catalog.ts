/**
 * The legal document catalog: which documents a site's case gets, in index order. The legal index
 * (`/legal/`) comes first, then the documents by `ordem`. Slugs are the pages' slugs (`/legal/<slug>`).
 */
import type { LegalCase, Setor } from "./cases";
import { politicaDeCookies } from "./texts/cookies";
import { politicaDePrivacidade } from "./texts/privacidade";
import type { LegalText } from "./texts/sections";
import { avisoDadosDeSaude, dadosDeCriancas, politicaDeTrocas, termosDeServicos } from "./texts/setores";
import { termosDeUso } from "./texts/termos";

/** The index's slug (its page is `/legal/`) and its `fields.documento_legal`. */
export const INDEX_SLUG = "legal";
export const INDEX_DOCUMENT = "indice";

export interface LegalDocument {
  slug: string;
  title: string;
  ordem: number;
  summary: string;
  /** Sectors that get it; all when absent. */
  setores?: readonly Setor[];
  /** The text; absent for the index (made from the pages that exist). */
  text?: LegalText;
}

const INDEX: LegalDocument = {
  slug: INDEX_SLUG,
  title: "Informações legais",
  ordem: 0,
  summary: "Índice dos documentos legais do site.",
};

const DOCUMENTS: readonly LegalDocument[] = [
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

/** The documents of a case, in index order: the index first, then by `ordem`. */
export function catalogFor(legalCase: LegalCase): LegalDocument[] {
  const documents = DOCUMENTS.filter((d) => !d.setores || d.setores.includes(legalCase.setor));
  return [INDEX, ...documents.sort((a, b) => a.ordem - b.ordem)];
}

/** The page path of a catalog document. */
export function documentPath(document: Pick<LegalDocument, "slug">): string {
  return document.slug === INDEX_SLUG ? "/legal/" : `/legal/${document.slug}`;
}
