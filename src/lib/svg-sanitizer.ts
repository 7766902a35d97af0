/**
 * SVG sanitizer shared by the sites service (`logo_svg`, `favicon_svg`, logo `svg_markup`) and the
 * content service's image ingest.
 *
 * How: a strict XML parser (src/lib/svg/xml.ts) reads the document with source offsets; an allowlist
 * decides which elements and attributes stay; the output is the original source with the removed
 * ranges cut out. Legitimate SVG therefore comes back byte-for-byte (attribute case, quoting,
 * whitespace, self-closing forms), and sanitizing twice changes nothing.
 *
 * Removed: the prologue (XML declaration, DOCTYPE with its entity declarations; entities are never
 * expanded), comments, processing instructions, every element outside the allowlist with its content
 * (script, foreignObject, link, animation elements, HTML and foreign-namespace elements), `on*` and
 * other unlisted attributes, script/data URLs in any attribute (after entity decoding, whitespace and
 * case folding), `use` with anything but a `#local` reference, `image` with anything but a local
 * reference or an embedded raster `data:image/...`, styles that `@import` or `url()` outside the
 * document, references to undeclared entities, element children of title/desc/style, and `use`
 * elements that loop or nest too deep (see svg/use-graph.ts). CDATA whose text could be read as markup
 * by an HTML parser is turned into escaped text.
 */
import { isSafeCss, isSafeStyleSheet } from "./svg/css";
import {
  ALLOWED_ATTRIBUTES,
  ALLOWED_ELEMENTS,
  ALLOWED_PREFIXED_ATTRIBUTES,
  ARIA_ATTRIBUTE,
  DANGEROUS_URL,
  isLocalRef,
  isSafeImageHref,
  isSafeLinkUrl,
  SVG_NS,
  squash,
  TEXT_ONLY_ELEMENTS,
  XLINK_NS,
} from "./svg/policy";
import {
  expansionSizes,
  MAX_TOTAL_EXPANSION,
  MAX_USE_DEPTH,
  MAX_USE_EXPANSION,
  type UseGraph,
  useDepths,
} from "./svg/use-graph";
import {
  type Attr,
  type CDataNode,
  type ElementNode,
  parseSvgDocument,
  type TextNode,
  textOf,
} from "./svg/xml";

export const SVG_MAX_BYTES = 32 * 1024;

export type SvgSanitizeResult =
  | { ok: true; svg: string }
  | { ok: false; reason: "too_large" | "not_svg" | "malformed" };

type Failure = Extract<SvgSanitizeResult, { ok: false }>;

export function sanitizeSvg(input: string): SvgSanitizeResult {
  if (typeof input !== "string") return { ok: false, reason: "not_svg" };
  // Every UTF-16 code unit is at least one UTF-8 byte and at most three: encode only when it matters.
  if (input.length > SVG_MAX_BYTES) return { ok: false, reason: "too_large" };
  if (input.length * 3 > SVG_MAX_BYTES && new TextEncoder().encode(input).byteLength > SVG_MAX_BYTES) {
    return { ok: false, reason: "too_large" };
  }
  return sanitizeSvgMarkup(input);
}

/**
 * The sanitizer without the size limit (exported for tests that feed the large corpus files through
 * the same rules); production callers use `sanitizeSvg`.
 */
export function sanitizeSvgMarkup(input: string): SvgSanitizeResult {
  try {
    return run(input);
  } catch {
    // Defensive: a bug must neither throw into a request handler nor let markup through.
    return { ok: false, reason: "malformed" };
  }
}

interface Plan {
  src: string;
  removed: Set<ElementNode>;
  removedAttrs: Set<Attr>;
}

function run(src: string): SvgSanitizeResult {
  const parsed = parseSvgDocument(src);
  if (!parsed.ok) return parsed;
  const { root, trailingWhitespace } = parsed.doc;
  const rootNs = attr(root, "xmlns");
  if (rootNs && rootNs.value !== SVG_NS) return { ok: false, reason: "not_svg" };

  const plan: Plan = { src, removed: new Set(), removedAttrs: new Set() };
  const kept: ElementNode[] = [];
  judgeTree(plan, root, kept);
  const refused = pruneUses(plan, kept);
  if (refused) return refused;

  const out = new Emitter(src);
  emitElement(plan, out, root);
  for (const ws of trailingWhitespace) out.text(src.slice(ws.start, ws.end));
  return { ok: true, svg: out.result() };
}

function attr(el: ElementNode, lowerName: string): Attr | undefined {
  return el.attrs.find((a) => a.name.toLowerCase() === lowerName);
}

function hrefs(el: ElementNode): Attr[] {
  return el.attrs.filter((a) => {
    const n = a.name.toLowerCase();
    return n === "href" || n === "xlink:href";
  });
}

/** Walks the tree in document order, marking removed elements and attributes; collects kept elements. */
function judgeTree(plan: Plan, root: ElementNode, kept: ElementNode[]): void {
  const stack: ElementNode[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el !== root && !keepElement(plan, el)) {
      plan.removed.add(el);
      continue;
    }
    kept.push(el);
    for (const a of el.attrs) if (!keepAttribute(el, a)) plan.removedAttrs.add(a);
    const children = el.children.filter((c): c is ElementNode => c.kind === "element");
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function keepElement(plan: Plan, el: ElementNode): boolean {
  if (!ALLOWED_ELEMENTS.has(el.name)) return false;
  // title/desc are HTML integration points when inlined in a page, style must stay plain CSS text.
  if (el.parent && TEXT_ONLY_ELEMENTS.has(el.parent.name)) return false;
  const ns = attr(el, "xmlns");
  if (ns && ns.value !== SVG_NS) return false;
  const links = hrefs(el);
  if (el.name === "use" && links.some((a) => a.value === null || !isLocalRef(a.value))) return false;
  if (el.name === "image" && links.some((a) => a.value === null || !isSafeImageHref(a.value))) return false;
  if (el.name === "style") {
    if (el.children.some((c) => c.kind === "element")) return false;
    let css = "";
    for (const c of el.children) {
      if (c.kind === "text") css += textOf(plan.src, c);
      else if (c.kind === "cdata") css += c.content;
    }
    if (!isSafeStyleSheet(css)) return false;
  }
  return true;
}

function keepAttribute(el: ElementNode, a: Attr): boolean {
  const name = a.name.toLowerCase();
  const value = a.value;
  if (value === null) return false; // undeclared entity: its DTD was removed, never expand it
  if (name.startsWith("on")) return false;
  if (a.name.includes(":")) {
    if (!ALLOWED_PREFIXED_ATTRIBUTES.has(a.name)) return false;
    if (a.name === "xmlns:xlink") return value === XLINK_NS;
  } else if (!ALLOWED_ATTRIBUTES.has(name) && !ARIA_ATTRIBUTE.test(name)) {
    return false;
  }
  if (name === "xmlns") return value === SVG_NS;
  if (name === "href" || name === "xlink:href") {
    if (el.name === "a") return isSafeLinkUrl(value);
    if (el.name === "image") return isSafeImageHref(value);
    return isLocalRef(value);
  }
  if (name === "style") return isSafeCss(value);
  // Any other attribute: no script or data URL hidden anywhere, no url() leaving the document.
  return !DANGEROUS_URL.test(squash(value)) && isSafeCss(value);
}

function keptChildren(plan: Plan, el: ElementNode): ElementNode[] {
  return el.children.filter((c): c is ElementNode => c.kind === "element" && !plan.removed.has(c));
}

function pruneUses(plan: Plan, kept: ElementNode[]): Failure | null {
  const uses = kept.filter((el) => el.name === "use");
  if (uses.length === 0) return null;
  const byId = new Map<string, ElementNode[]>();
  for (const el of kept) {
    for (const a of el.attrs) {
      const id = a.name.toLowerCase() === "id" && !plan.removedAttrs.has(a) ? a.value?.trim() : undefined;
      if (!id) continue;
      const list = byId.get(id);
      if (list) list.push(el);
      else byId.set(id, [el]);
    }
  }
  const targetsOf = (el: ElementNode): ElementNode[] => {
    if (el.name !== "use" || plan.removed.has(el)) return [];
    const out: ElementNode[] = [];
    for (const a of hrefs(el)) {
      if (plan.removedAttrs.has(a) || a.value === null) continue;
      for (const t of byId.get(a.value.trim().slice(1)) ?? []) if (!plan.removed.has(t)) out.push(t);
    }
    return out;
  };
  const graph = (): UseGraph => ({
    elements: kept.filter((el) => !plan.removed.has(el)),
    children: (el) => keptChildren(plan, el),
    targets: targetsOf,
  });

  const depths = useDepths(graph());
  for (const u of uses) if ((depths.get(u) ?? 0) > MAX_USE_DEPTH) plan.removed.add(u);

  const sizes = expansionSizes(graph());
  let total = 0;
  for (const u of uses) {
    if (plan.removed.has(u)) continue;
    const size = sizes.get(u) ?? 1;
    if (size > MAX_USE_EXPANSION) plan.removed.add(u);
    else total += size;
  }
  return total > MAX_TOTAL_EXPANSION ? { ok: false, reason: "too_large" } : null;
}

/**
 * Collects output. Tracks whether the output ends in text so that cutting a removed node out of
 * `]]<!-- -->>` cannot create the `]]>` that XML forbids in text (which would break idempotency).
 */
class Emitter {
  private parts: string[] = [];
  private textTail = "";

  constructor(private readonly src: string) {}

  markup(s: string): void {
    if (s === "") return;
    this.parts.push(s);
    this.textTail = "";
  }

  slice(start: number, end: number): void {
    this.markup(this.src.slice(start, end));
  }

  text(s: string): void {
    if (s === "") return;
    let chunk = s;
    const joined = this.textTail + chunk.slice(0, 2);
    const seam = joined.indexOf("]]>");
    if (seam !== -1 && seam + 2 >= this.textTail.length) {
      const at = seam + 2 - this.textTail.length;
      chunk = `${chunk.slice(0, at)}&gt;${chunk.slice(at + 1)}`;
    }
    this.parts.push(chunk);
    this.textTail = (this.textTail + chunk).slice(-2);
  }

  result(): string {
    return this.parts.join("");
  }
}

function emitElement(plan: Plan, out: Emitter, el: ElementNode): void {
  const { src } = plan;
  let open = src.slice(el.start, el.nameEnd);
  for (const a of el.attrs) if (!plan.removedAttrs.has(a)) open += src.slice(a.start, a.end);
  open += src.slice(el.tailStart, el.startTagEnd);
  out.markup(open);
  if (el.selfClosing) return;
  for (const child of el.children) {
    if (child.kind === "element") {
      if (!plan.removed.has(child)) emitElement(plan, out, child);
    } else if (child.kind === "text") emitText(plan, out, child);
    else if (child.kind === "cdata") emitCData(out, child);
  }
  out.slice(el.endTagStart, el.end);
}

function emitText(plan: Plan, out: Emitter, node: TextNode): void {
  for (const p of node.pieces) {
    // References to undeclared entities are dropped: their declarations went with the DOCTYPE.
    if (p.kind === "ref" && p.decoded === null) continue;
    out.text(plan.src.slice(p.start, p.end));
  }
}

/**
 * CDATA is kept as is only when its text holds no `<`, `>` or `&`: an HTML parser may read a CDATA
 * section as a bogus comment that ends at the first `>`, letting the rest become markup
 * (`<![CDATA[ ><img src onerror=alert(1)> ]]>`). Otherwise its text is emitted escaped.
 */
function emitCData(out: Emitter, node: CDataNode): void {
  if (!/[<>&]/.test(node.content)) {
    out.markup(`<![CDATA[${node.content}]]>`);
    return;
  }
  out.text(node.content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
}
