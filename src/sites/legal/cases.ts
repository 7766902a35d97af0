/**
 * The case a site's legal documents are chosen by: `perfil` (who answers for the site) and `setor` (what
 * it does), saved in `settings.legal.perfil` / `settings.legal.setor`. Absent values are the defaults.
 */

export const PERFIS = ["pessoa_fisica", "empresa"] as const;
export const SETORES = ["geral", "ecommerce", "saude", "educacao", "servicos"] as const;

export type Perfil = (typeof PERFIS)[number];
export type Setor = (typeof SETORES)[number];

export interface LegalCase {
  perfil: Perfil;
  setor: Setor;
}

/** Without a saved case: a company (the platform's usual customer) with a general-purpose site. */
export const DEFAULT_CASE: LegalCase = { perfil: "empresa", setor: "geral" };

export function isPerfil(value: unknown): value is Perfil {
  return typeof value === "string" && (PERFIS as readonly string[]).includes(value);
}

export function isSetor(value: unknown): value is Setor {
  return typeof value === "string" && (SETORES as readonly string[]).includes(value);
}

/**
 * Owner data a site may save under `settings.legal` to fill the documents' placeholders (each a string of
 * at most `LEGAL_DATA_MAX` characters); anything not saved stays a placeholder, a pending item.
 */
export const LEGAL_DATA_KEYS = [
  "razao_social",
  "cnpj",
  "nome_responsavel",
  "endereco",
  "email_contato",
  "encarregado_nome",
  "encarregado_email",
  "foro",
  // Asked only by the English documents (eu, uk, us-ca).
  "registration_number",
  "governing_law",
  "representative",
  "toll_free_number",
] as const;
export type LegalDataKey = (typeof LEGAL_DATA_KEYS)[number];
export const LEGAL_DATA_MAX = 300;
