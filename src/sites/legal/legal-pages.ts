/**
 * The legal pages operations: the catalog a site's case gets (`GET …/legal/catalogo`) and the generation
 * that writes each document as a page through content (`POST …/legal/generate`). Each document is one
 * content write (one D1 batch there); a document whose write fails is an error result and the batch goes
 * on; the index is written last and lists only the legal pages that exist afterwards.
 */
import type { LegalPage, LegalPageResult } from "../../lib/rpc";
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import { canonicalHost } from "../health/domains";
import { provedHostsOf } from "../health/domains-store";
import { appletEnabled, hostsOf, readSettings, type SettingsDocument } from "../site/record";
import { invalidateSiteCaches } from "../site/service";
import type { SiteRow } from "../site/store";
import { DEFAULT_CASE, isPerfil, isSetor, type LegalCase, PERFIS, SETORES } from "./cases";
import {
  catalogFor,
  DEFAULT_JURISDICTION,
  documentPath,
  INDEX_DOCUMENT,
  INDEX_SLUG,
  isJurisdiction,
  JURISDICTIONS,
  type Jurisdiction,
  jurisdictionSlugs,
  type LegalDocument,
  type LegalLanguage,
} from "./catalog";
import type { SiteFacts } from "./placeholders";
import { type RenderedDocument, renderDocument, renderIndex } from "./render";

export interface CatalogEntry {
  slug: string;
  title: string;
  ordem: number;
  path: string;
  summary: string;
  is_index: boolean;
  /** The language of the text generation writes (the site's where a translation exists). */
  language: LegalLanguage;
}

export type GenerationItem = {
  slug: string;
  title: string;
  ordem: number;
  path: string;
  pendencias: string[];
} & (
  | {
      resultado: "criada" | "atualizada" | "existente_publicada" | "existente_preservada";
      adotada: boolean;
      post_id: string;
      status: string;
      url: string;
    }
  | { resultado: "erro"; code: string; detail: string }
);

export interface Generation {
  perfil: LegalCase["perfil"];
  setor: LegalCase["setor"];
  jurisdiction: Jurisdiction;
  items: GenerationItem[];
}

type CaseOverride = {
  perfil?: string | undefined;
  setor?: string | undefined;
  jurisdiction?: string | undefined;
};

function legalSettings(settings: SettingsDocument): Record<string, unknown> {
  const legal = settings.legal;
  return legal !== null && typeof legal === "object" && !Array.isArray(legal)
    ? (legal as Record<string, unknown>)
    : {};
}

/**
 * The case documents are chosen by: the saved `settings.legal.perfil` / `setor` (defaults when absent),
 * each overridden by `override` when given. An unknown value, sent or saved, is 400 LEGAL_INVALID_CASE.
 */
export function legalCaseOf(
  settings: SettingsDocument,
  override: { perfil?: string | undefined; setor?: string | undefined } = {},
): LegalCase {
  const saved = legalSettings(settings);
  const perfil = override.perfil ?? saved.perfil ?? DEFAULT_CASE.perfil;
  const setor = override.setor ?? saved.setor ?? DEFAULT_CASE.setor;
  if (!isPerfil(perfil)) fail("LEGAL_INVALID_CASE", `perfil: must be one of ${PERFIS.join(", ")}`);
  if (!isSetor(setor)) fail("LEGAL_INVALID_CASE", `setor: must be one of ${SETORES.join(", ")}`);
  return { perfil, setor };
}

/**
 * The jurisdiction whose documents the site gets: the saved `settings.legal.jurisdiction` (default `br`),
 * overridden by `override` when given (the catalog's preview). Unknown: 400 LEGAL_INVALID_CASE.
 */
export function jurisdictionOf(settings: SettingsDocument, override?: string): Jurisdiction {
  const jurisdiction = override ?? legalSettings(settings).jurisdiction ?? DEFAULT_JURISDICTION;
  if (!isJurisdiction(jurisdiction)) {
    fail("LEGAL_INVALID_CASE", `jurisdiction: must be one of ${JURISDICTIONS.join(", ")}`);
  }
  return jurisdiction;
}

function entryOf(document: LegalDocument): CatalogEntry {
  return {
    slug: document.slug,
    title: document.title,
    ordem: document.ordem,
    path: documentPath(document),
    summary: document.summary,
    is_index: document.slug === INDEX_SLUG,
    language: document.language ?? "pt",
  };
}

/** What generation would produce for the site (saved case and jurisdiction, query overrides), in index order. */
export function legalCatalog(site: SiteRow, override: CaseOverride): CatalogEntry[] {
  const { settings } = readSettings(site.settings);
  const legalCase = legalCaseOf(settings, override);
  const jurisdiction = jurisdictionOf(settings, override.jurisdiction);
  return catalogFor(legalCase, jurisdiction, site.default_language).map(entryOf);
}

/** The documents a generation body selects (all when absent), in catalog order; unknown: LEGAL_UNKNOWN_DOC. */
export function selectDocuments(catalog: LegalDocument[], slugs: string[] | undefined): LegalDocument[] {
  if (slugs === undefined) return catalog;
  const unknown = slugs.filter((slug) => !catalog.some((d) => d.slug === slug));
  if (unknown.length > 0) {
    fail("LEGAL_UNKNOWN_DOC", {
      detail: `documentos: not in this site's catalog: ${unknown.slice(0, 5).join(", ")}`,
      details: { unknown: unknown.slice(0, 20) },
    });
  }
  // The index is always written (last): it lists what exists after the batch.
  return catalog.filter((d) => d.slug === INDEX_SLUG || slugs.includes(d.slug));
}

async function writePage(
  services: Services,
  site: SiteRow,
  userId: string,
  document: LegalDocument,
  rendered: RenderedDocument,
): Promise<GenerationItem> {
  const base = {
    slug: document.slug,
    title: document.title,
    ordem: document.ordem,
    path: documentPath(document),
    pendencias: rendered.pendencias,
  };
  let result: LegalPageResult;
  try {
    result = await services.content.upsertLegalPage({
      site_id: site.id,
      user_id: userId,
      slug: document.slug,
      title: rendered.title,
      blocks: rendered.blocks,
      fields: {
        secao: "legal",
        documento_legal: document.slug === INDEX_SLUG ? INDEX_DOCUMENT : document.slug,
        ordem: document.ordem,
      },
    });
  } catch (error) {
    services.log.error("legal_page_write_failed", {
      site_id: site.id,
      slug: document.slug,
      error: String(error),
    });
    result = { ok: false, code: "CONTENT_UNAVAILABLE", detail: "The content service did not answer." };
  }
  if (!result.ok) return { ...base, resultado: "erro", code: result.code, detail: result.detail };
  const { page } = result;
  return {
    ...base,
    resultado: result.resultado,
    adotada: result.adotada,
    post_id: page.post_id,
    status: page.status,
    path: page.path,
    url: page.url,
  };
}

/**
 * The pages the index lists: content's legal pages of the jurisdiction's set (pages of another set, left
 * from before a change of jurisdiction, are not listed), or (content not answering) this batch's pages.
 */
async function existingPages(
  services: Services,
  site: SiteRow,
  written: GenerationItem[],
  jurisdiction: Jurisdiction,
) {
  let pages: Pick<LegalPage, "documento_legal" | "title" | "path" | "ordem">[];
  try {
    pages = await services.content.legalPages({ site_id: site.id });
  } catch (error) {
    services.log.warn("legal_pages_unlisted", { site_id: site.id, error: String(error) });
    pages = written.flatMap((w) =>
      w.resultado === "erro"
        ? []
        : [{ documento_legal: w.slug, title: w.title, path: w.path, ordem: w.ordem }],
    );
  }
  const set = jurisdictionSlugs(jurisdiction);
  return pages.filter((p) => set.has(p.documento_legal)).sort((a, b) => a.ordem - b.ordem);
}

/**
 * Generates the site's legal pages: `site` is guarded, `userId` the caller (X-User-Id). The legal app must
 * be on (409 APPLET_DISABLED). Results in catalog order (the index first), though the index is written last.
 */
export async function generateLegalPages(
  env: SitesEnv,
  services: Services,
  site: SiteRow,
  userId: string,
  body: { documentos?: string[] | undefined },
): Promise<Generation> {
  const { settings } = readSettings(site.settings);
  if (!appletEnabled(settings, "legal")) {
    fail("APPLET_DISABLED", "The legal pages app is off for this site; install it first.");
  }
  const legalCase = legalCaseOf(settings);
  const jurisdiction = jurisdictionOf(settings);
  const catalog = catalogFor(legalCase, jurisdiction, site.default_language);
  const selected = selectDocuments(catalog, body.documentos);
  const facts: SiteFacts = {
    name: site.name,
    url: `https://${canonicalHost(site, env.PLATFORM_DOMAIN, await provedHostsOf(env.DB, site.id))}`,
    legal: legalSettings(settings),
  };
  const written: GenerationItem[] = [];
  const [index, ...documents] = selected as [LegalDocument, ...LegalDocument[]];
  for (const document of documents) {
    written.push(
      await writePage(services, site, userId, document, renderDocument(document, legalCase, facts)),
    );
  }
  const pages = await existingPages(services, site, written, jurisdiction);
  const indexItem = await writePage(services, site, userId, index, renderIndex(index, pages, facts));
  await invalidateSiteCaches(services, site.id, hostsOf(site, env.PLATFORM_DOMAIN), "legal_pages_generated");
  return { ...legalCase, jurisdiction, items: [indexItem, ...written] };
}
