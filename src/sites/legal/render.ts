/** A legal document as the page content writes: an Editor.js document, plus its pending placeholders. */
import type { LegalCase } from "./cases";
import type { LegalDocument } from "./catalog";
import { escapeHtml, fillPlaceholders, pendingItems, type SiteFacts } from "./placeholders";
import type { Section } from "./texts/sections";

interface Block {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface RenderedDocument {
  title: string;
  blocks: { blocks: Block[] };
  /** Placeholders the site could not fill: what the owner still has to complete. */
  pendencias: string[];
}

/** Editor.js blocks of sections (ids by position, so the same text renders byte-for-byte the same). */
function blocksOf(sections: Section[], intro: string[]): Block[] {
  const blocks: Omit<Block, "id">[] = intro.map((text) => ({ type: "paragraph", data: { text } }));
  for (const s of sections) {
    blocks.push({ type: "header", data: { text: s.titulo, level: 2 } });
    for (const text of s.paragrafos ?? []) blocks.push({ type: "paragraph", data: { text } });
    if (s.itens?.length) blocks.push({ type: "list", data: { style: "unordered", items: s.itens } });
    for (const text of s.fecho ?? []) blocks.push({ type: "paragraph", data: { text } });
  }
  return blocks.map((b, i) => ({ id: `legal-${i + 1}`, ...b }));
}

function textsOf(blocks: Block[]): string[] {
  return blocks.flatMap((b) =>
    Array.isArray(b.data.items) ? (b.data.items as string[]) : [String(b.data.text ?? "")],
  );
}

function filled(sections: Section[], facts: SiteFacts): Section[] {
  const fill = (t: string) => fillPlaceholders(t, facts);
  return sections.map((s) => ({
    titulo: fill(s.titulo),
    ...(s.paragrafos ? { paragrafos: s.paragrafos.map(fill) } : {}),
    ...(s.itens ? { itens: s.itens.map(fill) } : {}),
    ...(s.fecho ? { fecho: s.fecho.map(fill) } : {}),
  }));
}

/** A document of the catalog (not the index) for a site's case, placeholders filled from what the site knows. */
export function renderDocument(
  document: LegalDocument,
  legalCase: LegalCase,
  facts: SiteFacts,
): RenderedDocument {
  const sections = filled(document.text?.(legalCase) ?? [], facts);
  const blocks = blocksOf(sections, []);
  return { title: document.title, blocks: { blocks }, pendencias: pendingItems(textsOf(blocks)) };
}

/** The legal index: links to the legal pages that exist, in `ordem`. */
export function renderIndex(
  index: LegalDocument,
  pages: { title: string; path: string }[],
  facts: SiteFacts,
): RenderedDocument {
  const intro = fillPlaceholders(index.intro ?? "", facts);
  const items = pages.map((p) => `<a href="${escapeHtml(p.path)}">${escapeHtml(p.title)}</a>`);
  const blocks: Block[] = [{ id: "legal-1", type: "paragraph", data: { text: intro } }];
  if (items.length > 0) blocks.push({ id: "legal-2", type: "list", data: { style: "unordered", items } });
  return { title: index.title, blocks: { blocks }, pendencias: [] };
}
