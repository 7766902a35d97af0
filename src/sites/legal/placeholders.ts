/**
 * Placeholders of the legal texts: `[UPPER CASE IN BRACKETS]`. Those the site knows are filled (its name,
 * its address, the owner data saved under `settings.legal`); the rest stay in the text and are the
 * document's pending items (`pendencias`), returned to the owner.
 */
import type { LegalDataKey } from "./cases";

/** Placeholder -> the `settings.legal` key that fills it. */
const FROM_SETTINGS: Record<string, LegalDataKey> = {
  "[RAZÃO SOCIAL]": "razao_social",
  "[CNPJ]": "cnpj",
  "[NOME COMPLETO DO RESPONSÁVEL]": "nome_responsavel",
  "[ENDEREÇO COMPLETO]": "endereco",
  "[E-MAIL DE CONTATO]": "email_contato",
  "[NOME DO ENCARREGADO]": "encarregado_nome",
  "[E-MAIL DO ENCARREGADO]": "encarregado_email",
  "[CIDADE/UF DO FORO]": "foro",
  // The English documents (eu, uk, us-ca): the same owner data, and what only they ask for.
  "[LEGAL NAME]": "razao_social",
  "[COMPANY REGISTRATION NUMBER]": "registration_number",
  "[RESPONSIBLE PERSON]": "nome_responsavel",
  "[POSTAL ADDRESS]": "endereco",
  "[CONTACT E-MAIL]": "email_contato",
  "[DATA PROTECTION OFFICER]": "encarregado_nome",
  "[DPO E-MAIL]": "encarregado_email",
  "[COURTS]": "foro",
  "[GOVERNING LAW]": "governing_law",
  "[REPRESENTATIVE]": "representative",
  "[TOLL-FREE NUMBER]": "toll_free_number",
};

const PLACEHOLDER_RE = /\[[A-ZÀ-Ý0-9][A-ZÀ-Ý0-9 /,.-]*\]/g;

export interface SiteFacts {
  name: string;
  /** The site's public address (`https://<canonical host>`). */
  url: string;
  /** `settings.legal` (owner data by key). */
  legal: Record<string, unknown>;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The value a placeholder is filled with, or null (then it stays, a pending item). */
function knownValue(placeholder: string, facts: SiteFacts): string | null {
  if (placeholder === "[NOME DO SITE]" || placeholder === "[SITE NAME]") return facts.name;
  if (placeholder === "[ENDEREÇO DO SITE]" || placeholder === "[SITE ADDRESS]") return facts.url;
  const key = FROM_SETTINGS[placeholder];
  const value = key ? facts.legal[key] : undefined;
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** Fills what the site knows; the text is inline HTML, so filled values are escaped. */
export function fillPlaceholders(text: string, facts: SiteFacts): string {
  return text.replace(PLACEHOLDER_RE, (placeholder) => {
    const value = knownValue(placeholder, facts);
    return value === null ? placeholder : escapeHtml(value);
  });
}

/** The placeholders left in texts, each once, in order of appearance. */
export function pendingItems(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(PLACEHOLDER_RE)) found.add(match[0]);
  return [...found];
}
