/**
 * HTML body to Editor.js blocks. parse5 builds the tree a browser would (the HTML standard's tree
 * construction, misnested and unclosed markup included); this module only walks it. Block elements become
 * blocks (h1-h6 header, p paragraph, ul/ol list in the nested v2 form, blockquote quote, pre code, hr
 * delimiter, img and figure image, table table); inline markup stays as the block's text, which the inline
 * sanitizer cleans again when the post is rendered; text outside any block becomes paragraphs. Whatever
 * has no block (scripts, styles, forms, embeds, unknown elements, attributes) is dropped or simplified and
 * counted in the `conversion` note: nothing is lost without a word.
 */
import { type DefaultTreeAdapterTypes, parse, parseFragment } from "parse5";
import { MAX_LIST_LEVELS } from "../blocks/catalogue";
import { escapeHtml, INLINE_ALLOWED_TAGS, inlineText, safeLinkHref } from "../render/inline-html";
import { type EditorBlock, safeHttpUrl } from "../render/render-blocks";
import { type Converted, LossLog } from "./conversion";

type Node = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

export interface ConvertOptions {
  /**
   * The URL an image block stores for an `<img src>`; null when the image cannot be shown (it is then
   * dropped and counted). Default: absolute http(s) URLs only.
   */
  imageUrl?: (src: string) => string | null;
}

/** Deeper markup keeps only its text: bounds the walk's recursion on hostile input. */
const MAX_DEPTH = 100;

const HTML_NS = "http://www.w3.org/1999/xhtml";

/** Inline elements the sanitizer keeps under another name. */
const RENAMED: Record<string, string> = {
  del: "s",
  strike: "s",
  ins: "u",
  tt: "code",
  kbd: "code",
  samp: "code",
};

/** Removed together with their content: code, styling, forms, foreign content, document metadata. */
const DROPPED = new Set(
  (
    "script style template noscript form input button select option optgroup textarea datalist output " +
    "svg math canvas head title meta link base dialog map area track param"
  ).split(" "),
);

/** Embedded players and frames: a link to their source takes their place. */
const EMBEDS = new Set(["iframe", "video", "audio", "embed", "object", "frame", "frameset", "portal"]);

/** Containers that only group blocks: walked through, nothing lost but their attributes. */
const TRANSPARENT = new Set(
  "html body div section article main header footer aside nav hgroup address center search".split(" "),
);

/** Block-level elements: inside text (a heading, a cell, a list item) they end a line. */
const BLOCK_LEVEL = new Set([
  ...TRANSPARENT,
  ..."p h1 h2 h3 h4 h5 h6 ul ol li dl dt dd blockquote pre hr figure figcaption details summary".split(" "),
  ..."table caption thead tbody tfoot tr td th".split(" "),
]);

/** Paragraphs and the parts of containers: inside text, the container (if any) is what was flattened. */
const PARTS = new Set("p li dt dd thead tbody tfoot tr td th caption figcaption summary".split(" "));

/** Attributes each element keeps (as block data); every other attribute is counted as lost. */
const KEPT_ATTRIBUTES: Record<string, ReadonlySet<string>> = {
  a: new Set(["href", "target"]),
  img: new Set(["src", "alt", "width", "height"]),
  ol: new Set(["start", "type", "reversed"]),
  td: new Set(["colspan", "rowspan"]),
  ...Object.fromEntries([...EMBEDS].map((name) => [name, new Set(["src", "data", "title"])])),
  th: new Set(["colspan", "rowspan"]),
};
const NO_ATTRIBUTES: ReadonlySet<string> = new Set();

const COUNTER_TYPES: Record<string, string> = {
  "1": "numeric",
  a: "lower-alpha",
  A: "upper-alpha",
  i: "lower-roman",
  I: "upper-roman",
};

const LOST = {
  attributes: "attributes (class, style, id and the like; the page's own styling applies)",
  deep: `markup nested deeper than ${MAX_DEPTH} levels (its text kept)`,
  formattingAroundBlock: "inline formatting or a link around a block (the block kept without it)",
  unsafeLink: "link to an unsafe or unsupported URL (its text kept)",
  imageUrl: "image without an absolute http(s) or platform media URL (removed)",
  imageAlt: "image alt text other than its caption (the caption is the alt)",
  nestedListStyle: "nested list of another style (takes the outer list's style)",
  listReversed: "reversed order of a numbered list",
  codeLanguage: "code block language",
  codeMarkup: "markup inside a code block (its text kept)",
  mergedCells: "merged table cells (colspan/rowspan)",
  tableCaption: "table caption (kept as a paragraph before the table)",
  figureCaption: "caption of a figure that is not a single image (kept as a paragraph)",
  checkbox: "checkbox outside a checklist (removed)",
  pictureSource: "<picture> sources (the platform makes its own responsive sources)",
} as const;

function isElement(node: Node): node is Element {
  return "tagName" in node;
}

function isText(node: Node): node is DefaultTreeAdapterTypes.TextNode {
  return node.nodeName === "#text";
}

function attr(el: Element, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name)?.value;
}

function children(el: Element): Node[] {
  return el.childNodes;
}

function isBlank(node: Node): boolean {
  return !isElement(node) && (!isText(node) || /^[ \t\n\f\r]*$/.test(node.value));
}

/** The element's text as a reader sees it, walked without recursion; `<br>` is a newline. */
function textContent(root: Element): string {
  let out = "";
  const stack: Node[] = [...children(root)].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) out += node.value;
    else if (isElement(node)) {
      if (node.tagName === "br") out += "\n";
      else if (!DROPPED.has(node.tagName)) stack.push(...[...children(node)].reverse());
    }
  }
  return out;
}

/** Every descendant element, without recursion. */
function descendants(root: Element): Element[] {
  const out: Element[] = [];
  const stack: Node[] = [...children(root)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    out.push(node);
    stack.push(...children(node));
  }
  return out;
}

function collapse(text: string): string {
  return text.replace(/[ \t\n\f\r]+/g, " ");
}

/** Inline HTML without blank space at its ends (inside its outer tags too) nor trailing line breaks. */
function trimInline(html: string): string {
  return html
    .replace(/^((?:<[a-z][^>]*>)*)(?:\s|<br>)+/, "$1")
    .replace(/(?:\s|<br>)+((?:<\/[a-z0-9]+>)*)$/, "$1");
}

/** The text of the paragraph being collected in the flow, with the inline elements open at this point. */
class PendingText {
  private html = "";
  private visible = false;
  /** Whether the text so far ends with a space (asked of a flag: `endsWith` would flatten the string each time). */
  private space = false;
  readonly open: { name: string; start: string }[] = [];

  text(value: string): void {
    let text = collapse(value);
    if (!this.visible || this.space) text = text.trimStart();
    if (text === "") return;
    this.visible = true;
    this.space = text.endsWith(" ");
    this.html += escapeHtml(text);
  }

  start(name: string, start: string): void {
    this.html += start;
    this.open.push({ name, start });
  }

  end(): void {
    const element = this.open.pop();
    if (element) this.html += `</${element.name}>`;
  }

  br(): void {
    if (!this.visible) return;
    this.html += "<br>";
    this.space = false;
  }

  /** The paragraph so far (null when it has no visible text); the open elements carry on in the next one. */
  take(): string | null {
    const closing = this.open
      .map((e) => `</${e.name}>`)
      .reverse()
      .join("");
    const html = this.visible ? trimInline(this.html + closing) : null;
    this.html = this.open.map((e) => e.start).join("");
    this.visible = false;
    this.space = false;
    return html;
  }
}

/** Inline HTML built from a subtree that must stay one piece of text (a heading, a cell, a list item). */
class FlatText {
  out = "";
  private visible = false;
  private lineBreak = false;
  private space = false;

  add(html: string, visible: boolean): void {
    if (visible) {
      if (this.lineBreak && this.visible) this.out += "<br>";
      this.lineBreak = false;
      this.visible = true;
    }
    this.out += html;
    if (html === "<br>") this.space = false;
  }

  text(value: string): void {
    let text = collapse(value);
    if (!this.visible || this.lineBreak || this.space) text = text.trimStart();
    if (text === "") return;
    this.add(escapeHtml(text), true);
    this.space = text.endsWith(" ");
  }

  /** A block boundary: a line break once text follows text. */
  boundary(): void {
    this.lineBreak = true;
  }

  result(): string {
    return trimInline(this.out);
  }
}

class HtmlConverter {
  readonly blocks: EditorBlock[] = [];
  private readonly pending = new PendingText();

  constructor(
    readonly losses: LossLog,
    private readonly imageUrl: (src: string) => string | null,
  ) {}

  lose(what: string, example?: string): void {
    this.losses.add(what, example);
  }

  /** Counts the attributes the element's block does not keep. */
  private attributes(el: Element, alsoKept?: string): void {
    const kept = KEPT_ATTRIBUTES[el.tagName] ?? NO_ATTRIBUTES;
    for (const a of el.attrs) {
      if (!kept.has(a.name) && a.name !== alsoKept) this.lose(LOST.attributes, `${a.name}="${a.value}"`);
    }
  }

  private tooDeep(el: Element, depth: number): boolean {
    if (depth <= MAX_DEPTH) return false;
    this.lose(LOST.deep, `<${el.tagName}>`);
    return true;
  }

  /**
   * Whether a walk goes into `node`, an element of the HTML namespace the sanitizer keeps (its attributes
   * counted). Comments and doctypes are skipped; markup too deep keeps only its text, in `sink`; foreign
   * content and the dropped elements go with what they hold (counted).
   */
  private enters(node: Node, depth: number, sink: { text(value: string): void }): node is Element {
    if (!isElement(node)) return false;
    if (this.tooDeep(node, depth)) {
      sink.text(textContent(node));
      return false;
    }
    if (node.namespaceURI !== HTML_NS || DROPPED.has(node.tagName)) {
      this.dropped(node);
      return false;
    }
    this.attributes(node);
    return true;
  }

  // ---- the flow: blocks and the paragraphs between them

  flow(nodes: Node[], depth: number): void {
    for (const node of nodes) this.flowNode(node, depth);
  }

  /** Ends the paragraph being collected. */
  flush(): void {
    const text = this.pending.take();
    if (text !== null) this.blocks.push({ type: "paragraph", data: { text } });
  }

  emit(block: EditorBlock | null): void {
    this.flush();
    if (!block) return;
    if (this.pending.open.length > 0) {
      this.lose(LOST.formattingAroundBlock, this.pending.open.map((e) => e.start).join(""));
    }
    this.blocks.push(block);
  }

  private flowNode(node: Node, depth: number): void {
    if (isText(node)) {
      this.pending.text(node.value);
      return;
    }
    if (!this.enters(node, depth, this.pending)) return;
    const name = node.tagName;
    const inner = () => this.flow(children(node), depth + 1);
    if (INLINE_ALLOWED_TAGS.has(name) || Object.hasOwn(RENAMED, name)) {
      if (name === "br") {
        this.pending.br();
        return;
      }
      const start = this.inlineStart(node);
      if (start === null) {
        inner();
        return;
      }
      const tag = RENAMED[name] ?? name;
      this.pending.start(tag, start);
      inner();
      this.pending.end();
      return;
    }
    if (TRANSPARENT.has(name)) {
      inner();
      return;
    }
    switch (name) {
      case "p":
      case "li":
      case "dt":
      case "dd":
      case "summary":
        this.flush();
        inner();
        this.flush();
        return;
      case "figcaption":
        this.flush();
        this.lose(LOST.figureCaption, textContent(node));
        inner();
        this.flush();
        return;
      case "dl":
      case "details":
        this.lose(`<${name}> (kept as paragraphs)`);
        inner();
        return;
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        this.emit(this.header(node, depth));
        return;
      case "ul":
      case "ol":
        this.emit(this.list(node, depth));
        return;
      case "blockquote":
        this.emit(this.quote(node, depth));
        return;
      case "pre":
        this.emit(this.code(node));
        return;
      case "hr":
        this.emit({ type: "delimiter", data: {} });
        return;
      case "table":
        this.table(node, depth);
        return;
      case "figure":
        this.figure(node, depth);
        return;
      case "img":
        this.emit(this.image(node, null));
        return;
      case "picture":
        this.emit(this.picture(node, null));
        return;
      case "wbr":
        return;
      default:
        if (EMBEDS.has(name)) {
          this.embed(node);
          return;
        }
        // Unknown and unsupported elements (abbr, cite, q, time, custom elements...): their text stays.
        this.lose(`<${name}> (element dropped, its text kept)`);
        inner();
        return;
    }
  }

  private dropped(el: Element): void {
    const shown = textContent(el).trim();
    this.lose(`<${el.tagName}> (removed with its content)`, shown || undefined);
  }

  /** The start tag of a kept inline element, or null when it is unwrapped (a link without a safe URL). */
  private inlineStart(el: Element): string | null {
    const name = RENAMED[el.tagName] ?? el.tagName;
    if (name !== "a") return `<${name}>`;
    const raw = attr(el, "href");
    if (raw === undefined) return null;
    const href = safeLinkHref(raw);
    if (href === null) {
      this.lose(LOST.unsafeLink, raw);
      return null;
    }
    const target = attr(el, "target") !== undefined ? ' target="_blank"' : "";
    return `<a href="${escapeHtml(href)}"${target}>`;
  }

  // ---- text that must stay one piece (headings, list items, quotes, cells, captions)

  /** The inline HTML of `nodes`; block-level children become line breaks, media inside is dropped and counted. */
  flat(nodes: Node[], where: string, depth: number, skip?: ReadonlySet<Node>): string {
    const text = new FlatText();
    this.flatInto(text, nodes, where, depth, skip);
    return text.result();
  }

  private flatInto(text: FlatText, nodes: Node[], where: string, depth: number, skip?: ReadonlySet<Node>) {
    for (const node of nodes) {
      if (skip?.has(node)) continue;
      if (isText(node)) {
        text.text(node.value);
        continue;
      }
      if (!this.enters(node, depth, text)) continue;
      const name = node.tagName;
      if (name === "br") {
        text.add("<br>", false);
        continue;
      }
      if (INLINE_ALLOWED_TAGS.has(name) || Object.hasOwn(RENAMED, name)) {
        const start = this.inlineStart(node);
        if (start === null) {
          this.flatInto(text, children(node), where, depth + 1, skip);
          continue;
        }
        const tag = RENAMED[name] ?? name;
        text.add(start, false);
        this.flatInto(text, children(node), where, depth + 1, skip);
        text.add(`</${tag}>`, false);
        continue;
      }
      if (name === "img" || name === "picture" || name === "hr" || EMBEDS.has(name)) {
        this.lose(`<${name}> inside a ${where} (removed)`, attr(node, "src") ?? attr(node, "data"));
        continue;
      }
      if (name === "wbr") continue;
      if (BLOCK_LEVEL.has(name)) {
        const plain = TRANSPARENT.has(name) || PARTS.has(name);
        if (!plain) this.lose(`<${name}> inside a ${where} (flattened to text)`);
        text.boundary();
        this.flatInto(text, children(node), where, depth + 1, skip);
        text.boundary();
        continue;
      }
      this.lose(`<${name}> (element dropped, its text kept)`);
      this.flatInto(text, children(node), where, depth + 1, skip);
    }
  }

  // ---- blocks

  private header(el: Element, depth: number): EditorBlock | null {
    const text = this.flat(children(el), "heading", depth + 1);
    if (text === "") return null;
    return { type: "header", data: { text, level: Number(el.tagName.slice(1)) } };
  }

  private quote(el: Element, depth: number): EditorBlock | null {
    const cite = children(el).find(
      (n): n is Element => isElement(n) && (n.tagName === "cite" || n.tagName === "footer"),
    );
    const skip = new Set<Node>(cite ? [cite] : []);
    const text = this.flat(children(el), "quote", depth + 1, skip);
    if (cite) this.attributes(cite);
    const caption = cite ? this.flat(children(cite), "quote", depth + 1) : "";
    if (text === "" && caption === "") return null;
    return { type: "quote", data: { text, caption, alignment: "left" } };
  }

  private code(el: Element): EditorBlock | null {
    const code = textContent(el);
    if (code.trim() === "") return null;
    for (const d of descendants(el)) {
      const language = /(?:^|\s)(?:language|lang)-(\S+)/.exec(attr(d, "class") ?? "")?.[1];
      if (language) this.lose(LOST.codeLanguage, language);
      this.attributes(d, language ? "class" : undefined);
    }
    const inner = children(el).filter((n) => !isBlank(n));
    const plain = inner.every((n) => isText(n) || (isElement(n) && n.tagName === "code"));
    const codeChildren = inner.flatMap((n) => (isElement(n) ? children(n) : []));
    if (!plain || codeChildren.some(isElement)) this.lose(LOST.codeMarkup);
    return { type: "code", data: { code } };
  }

  /** `<ol>`/`<ul>` as a v2 list (`{style, meta, items: [{content, meta, items}]}`); GFM task lists are checklists. */
  private list(el: Element, depth: number): EditorBlock | null {
    const lis = children(el).filter((n): n is Element => isElement(n) && n.tagName === "li");
    const checklist = lis.length > 0 && lis.every((li) => checkboxOf(li) !== null);
    const style = checklist ? "checklist" : el.tagName === "ol" ? "ordered" : "unordered";
    const items = this.listItems(el, style, depth);
    if (items.length === 0) return null;
    const meta: Record<string, unknown> = {};
    if (style === "ordered") {
      const start = Number.parseInt(attr(el, "start") ?? "1", 10);
      meta.start = Number.isSafeInteger(start) ? start : 1;
      meta.counterType = COUNTER_TYPES[attr(el, "type") ?? "1"] ?? "numeric";
      if (attr(el, "reversed") !== undefined) this.lose(LOST.listReversed);
    }
    return { type: "list", data: { style, meta, items } };
  }

  private listItems(list: Element, style: string, depth: number, level = 1): Record<string, unknown>[] {
    const items: Record<string, unknown>[] = [];
    for (const node of children(list)) {
      if (isBlank(node)) continue;
      if (!isElement(node) || node.tagName !== "li") {
        // Text or elements directly in a list (invalid HTML): their own item.
        const content = this.flat([node], "list item", depth + 1);
        if (content !== "") items.push({ content, meta: {}, items: [] });
        continue;
      }
      this.attributes(node);
      if (this.tooDeep(node, depth)) {
        items.push({ content: escapeHtml(collapse(textContent(node)).trim()), meta: {}, items: [] });
        continue;
      }
      // The deepest level the catalogue takes keeps deeper lists as text of its items.
      const nested =
        level < MAX_LIST_LEVELS
          ? children(node).filter(
              (n): n is Element => isElement(n) && (n.tagName === "ul" || n.tagName === "ol"),
            )
          : [];
      const checkbox = checkboxOf(node);
      const skip = new Set<Node>(nested);
      if (checkbox) {
        skip.add(checkbox);
        if (style !== "checklist") this.lose(LOST.checkbox);
      }
      const content = this.flat(children(node), "list item", depth + 1, skip);
      const sub: Record<string, unknown>[] = [];
      for (const inner of nested) {
        this.attributes(inner);
        const innerStyle = inner.tagName === "ol" ? "ordered" : "unordered";
        if (style !== "checklist" && innerStyle !== style)
          this.lose(LOST.nestedListStyle, `<${inner.tagName}>`);
        sub.push(...this.listItems(inner, style, depth + 2, level + 1));
      }
      const meta =
        style === "checklist"
          ? { checked: checkbox !== null && attr(checkbox, "checked") !== undefined }
          : {};
      items.push({ content, meta, items: sub });
    }
    return items;
  }

  private table(el: Element, depth: number): void {
    const rows: string[][] = [];
    let headings = false;
    const addRow = (tr: Element, head: boolean) => {
      this.attributes(tr);
      const cells = children(tr).filter(
        (n): n is Element => isElement(n) && (n.tagName === "td" || n.tagName === "th"),
      );
      if (rows.length === 0 && (head || (cells.length > 0 && cells.every((c) => c.tagName === "th"))))
        headings = true;
      rows.push(
        cells.map((cell) => {
          if (Number(attr(cell, "colspan") ?? 1) > 1 || Number(attr(cell, "rowspan") ?? 1) > 1) {
            this.lose(LOST.mergedCells);
          }
          this.attributes(cell);
          return this.flat(children(cell), "table cell", depth + 3);
        }),
      );
    };
    for (const part of children(el)) {
      if (!isElement(part)) continue;
      this.attributes(part);
      if (part.tagName === "caption") {
        const caption = this.flat(children(part), "table caption", depth + 1);
        if (caption !== "") {
          this.lose(LOST.tableCaption, inlineText(caption));
          this.emit({ type: "paragraph", data: { text: caption } });
        }
      } else if (part.tagName === "tr") addRow(part, false);
      else if (part.tagName === "thead" || part.tagName === "tbody" || part.tagName === "tfoot") {
        for (const tr of children(part)) {
          if (isElement(tr) && tr.tagName === "tr") addRow(tr, part.tagName === "thead");
        }
      } else if (part.tagName !== "colgroup") this.lose(`<${part.tagName}> inside a table (removed)`);
    }
    if (rows.length === 0) return;
    this.emit({ type: "table", data: { withHeadings: headings, stretched: false, content: rows } });
  }

  /** A figure of one image is an image block with its caption; any other figure is walked through. */
  private figure(el: Element, depth: number): void {
    const caption = children(el).find((n): n is Element => isElement(n) && n.tagName === "figcaption");
    const inCaption = new Set<Element>(caption ? [caption, ...descendants(caption)] : []);
    const inside = descendants(el).filter((d) => !inCaption.has(d));
    const images = inside.filter((d) => d.tagName === "img");
    const textOutside = children(el)
      .filter((n) => n !== caption)
      .map((n) => (isText(n) ? n.value : isElement(n) ? textContent(n) : ""))
      .join("");
    const single =
      images.length === 1 &&
      textOutside.trim() === "" &&
      !inside.some((d) => d.tagName === "table" || d.tagName === "blockquote" || EMBEDS.has(d.tagName));
    if (!single) {
      this.flow(children(el), depth + 1);
      return;
    }
    for (const d of inside) {
      if (d.tagName === "a") this.lose(LOST.formattingAroundBlock, `<a href="${attr(d, "href") ?? ""}">`);
      if (d.tagName !== "img" && d.tagName !== "picture" && d.tagName !== "source") this.attributes(d);
    }
    if (caption) this.attributes(caption);
    const captionHtml = caption ? this.flat(children(caption), "caption", depth + 1) : null;
    const picture = inside.find((d) => d.tagName === "picture");
    this.emit(picture ? this.picture(picture, captionHtml) : this.image(images[0]!, captionHtml));
  }

  private picture(el: Element, caption: string | null): EditorBlock | null {
    this.attributes(el);
    const all = descendants(el);
    if (all.some((d) => d.tagName === "source")) this.lose(LOST.pictureSource);
    const img = all.find((d) => d.tagName === "img");
    return img ? this.image(img, caption) : null;
  }

  private image(img: Element, caption: string | null): EditorBlock | null {
    this.attributes(img);
    const src = attr(img, "src")?.trim() ?? "";
    const url = src === "" ? null : this.imageUrl(src);
    if (url === null) {
      this.lose(LOST.imageUrl, src || "<img> without src");
      return null;
    }
    const alt = collapse(attr(img, "alt") ?? "").trim();
    let captionHtml = caption ?? "";
    // The rendered image's alt is its caption's text: an image without a caption keeps its alt as caption.
    if (captionHtml === "" && alt !== "") captionHtml = escapeHtml(alt);
    else if (alt !== "" && alt !== inlineText(captionHtml)) this.lose(LOST.imageAlt, alt);
    const file: Record<string, unknown> = { url };
    const width = attr(img, "width");
    const height = attr(img, "height");
    if (width && height && /^[0-9]{1,6}$/.test(width) && /^[0-9]{1,6}$/.test(height)) {
      file.width = Number(width);
      file.height = Number(height);
    }
    return {
      type: "image",
      data: { file, caption: captionHtml, withBorder: false, withBackground: false, stretched: false },
    };
  }

  /** A frame or player becomes a paragraph with a link to its source (no third-party frame runs on the page). */
  private embed(el: Element): void {
    const source = descendants(el).find((d) => d.tagName === "source" && attr(d, "src"));
    const raw = attr(el, "src") ?? attr(el, "data") ?? (source ? attr(source, "src") : undefined) ?? "";
    const href = safeHttpUrl(raw);
    if (href === null) {
      this.lose(`<${el.tagName}> without an http(s) source (removed)`, raw || undefined);
      return;
    }
    this.lose(`<${el.tagName}> (kept as a link to its source)`, href);
    const title = collapse(attr(el, "title") ?? "").trim();
    this.emit({
      type: "paragraph",
      data: { text: `<a href="${escapeHtml(href)}">${escapeHtml(title || href)}</a>` },
    });
  }
}

/** The checkbox that starts a list item (GFM task list), directly or in its first paragraph; else null. */
function checkboxOf(li: Element): Element | null {
  let first = li.childNodes.find((n) => !isBlank(n));
  if (first && isElement(first) && first.tagName === "p") first = first.childNodes.find((n) => !isBlank(n));
  if (
    first &&
    isElement(first) &&
    first.tagName === "input" &&
    attr(first, "type")?.toLowerCase() === "checkbox"
  ) {
    return first;
  }
  return null;
}

/** Converts an HTML body (a fragment, or a whole document whose `<body>` is taken) to blocks. */
export function htmlToBlocks(html: string, options: ConvertOptions = {}): Converted {
  const losses = new LossLog();
  const converter = new HtmlConverter(losses, options.imageUrl ?? safeHttpUrl);
  const nodes = /^\s*<(?:!doctype|html[\s>])/i.test(html)
    ? documentBody(html)
    : parseFragment(html).childNodes;
  converter.flow(nodes, 0);
  converter.flush();
  return { blocks: converter.blocks, conversion: { lost: losses.lost } };
}

function documentBody(html: string): Node[] {
  const root = parse(html).childNodes.find((n): n is Element => isElement(n) && n.tagName === "html");
  const body = root?.childNodes.find((n): n is Element => isElement(n) && n.tagName === "body");
  return body ? body.childNodes : [];
}
