/** The shape of a legal text: sections of paragraphs and bullet items (inline HTML allowed, placeholders in brackets). */
import type { LegalCase } from "../cases";

export interface Section {
  titulo: string;
  paragrafos?: string[];
  itens?: string[];
  /** Paragraphs after the items. */
  fecho?: string[];
}

/** A document's text for a case. */
export type LegalText = (c: LegalCase) => Section[];

/** Who answers for the site, as the documents name it. */
export function controlador(c: LegalCase): string {
  return c.perfil === "empresa"
    ? "[RAZÃO SOCIAL], inscrita no CNPJ sob o nº [CNPJ], com sede em [ENDEREÇO COMPLETO]"
    : "[NOME COMPLETO DO RESPONSÁVEL], pessoa física responsável pelo site, com endereço para correspondência em [ENDEREÇO COMPLETO]";
}

/** Short name of who answers for the site. */
export function responsavel(c: LegalCase): string {
  return c.perfil === "empresa" ? "[RAZÃO SOCIAL]" : "[NOME COMPLETO DO RESPONSÁVEL]";
}

/**
 * The data-protection contact: a company names its encarregado (LGPD art. 41); a natural person acting as a
 * small-scale controller may instead keep a communication channel (Resolução CD/ANPD nº 2/2022, art. 11).
 */
export function canalDoTitular(c: LegalCase): string {
  return c.perfil === "empresa"
    ? "nosso encarregado pelo tratamento de dados pessoais, [NOME DO ENCARREGADO], pelo e-mail [E-MAIL DO ENCARREGADO]"
    : "o responsável pelo site, pelo e-mail [E-MAIL DE CONTATO], canal de comunicação com o titular (Resolução CD/ANPD nº 2/2022)";
}
