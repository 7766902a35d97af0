/**
 * Renders a post's Editor.js document (`blocks_json`) to the `content_html` of PostDetail. Every piece of
 * markup is built here from escaped text and escaped, quoted attribute values; block text that carries
 * inline HTML goes through the allowlist sanitizer. Platform blocks (ad, product card, story page, related
 * articles) and unknown types are kept in the source but never rendered.
 */

import { type ImageView, webpSrcset } from "../../media/image-view";
import {
  escapeHtml,
  hasControlCharacter,
  inlineText,
  sanitizeInlineHtml,
  stripUrlWhitespace,
} from "./inline-html";

export { escapeHtml } from "./inline-html";

export interface EditorBlock {
  id?: string;
  type: string;
  data: Record<string, unknown>;
}

export interface RenderOptions {
  /** Resolves an image block's `media_id` to a URL (http(s) or a root-relative path); null when unknown. */
  mediaUrl?: (mediaId: string) => string | null;
  /**
   * Resolves an image block's `media_id` to the asset's view (its variants); takes precedence over
   * `mediaUrl`. An image with a view gets `srcset`/`sizes`, and a WebP `<source>` when it has WebP variants.
   */
  mediaImage?: (mediaId: string) => ImageView | null;
  /**
   * The media id a URL names when it is the platform's own media of the post's site (media-url.ts), else
   * null: an image's `file.url` on it renders through `mediaImage` like `media_id` does.
   */
  mediaIdOfUrl?: (url: string) => string | null;
}

/** What rendering remembers from block to block: whether an image was rendered (the rest load lazily). */
interface RenderState {
  images: number;
}

type Data = Record<string, unknown>;

function isRecord(value: unknown): value is Data {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Shape check of an Editor.js document: `{"blocks":[{"id"?,"type","data"}]}`; a JSON string is parsed first. */
export function parseBlocksDocument(doc: unknown): { ok: true; blocks: EditorBlock[] } | { ok: false } {
  let value = doc;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return { ok: false };
    }
  }
  if (!isRecord(value) || !Array.isArray(value.blocks)) return { ok: false };
  const blocks: EditorBlock[] = [];
  for (const block of value.blocks) {
    if (!isRecord(block) || typeof block.type !== "string" || block.type === "" || !isRecord(block.data)) {
      return { ok: false };
    }
    if (block.id !== undefined && typeof block.id !== "string") return { ok: false };
    blocks.push(
      block.id === undefined
        ? { type: block.type, data: block.data }
        : { id: block.id, type: block.type, data: block.data },
    );
  }
  return { ok: true, blocks };
}

/** Renders the document; never throws. A malformed document, or a block that fails, renders as "". */
export function renderBlocks(doc: unknown, options: RenderOptions = {}): string {
  try {
    const parsed = parseBlocksDocument(doc);
    if (!parsed.ok) return "";
    let html = "";
    const state: RenderState = { images: 0 };
    for (const block of parsed.blocks) {
      try {
        html += renderBlock(block, options, state);
      } catch {
        // A hostile or broken block must not take the rest of the post down with it.
      }
    }
    return html;
  } catch {
    return "";
  }
}

function renderBlock(block: EditorBlock, options: RenderOptions, state: RenderState): string {
  const data = block.data;
  switch (block.type) {
    case "paragraph":
      return typeof data.text === "string" ? `<p>${sanitizeInlineHtml(data.text)}</p>` : "";
    case "header":
      return renderHeader(data);
    case "list":
      return renderList(data);
    case "quote":
      return renderQuote(data);
    case "code":
      return typeof data.code === "string" ? `<pre><code>${escapeHtml(data.code)}</code></pre>` : "";
    case "delimiter":
      return "<hr>";
    case "image":
      return renderImage(data, options, state);
    case "embed":
      return renderEmbed(data);
    case "table":
      return renderTable(data);
    default:
      // ad, product_card, story_page, related_articles and any unknown type.
      return "";
  }
}

function inline(value: unknown): string {
  return typeof value === "string" ? sanitizeInlineHtml(value) : "";
}

function renderHeader(data: Data): string {
  if (typeof data.text !== "string") return "";
  const level =
    typeof data.level === "number" && Number.isInteger(data.level) && data.level >= 1 && data.level <= 6
      ? data.level
      : 2;
  return `<h${level}>${sanitizeInlineHtml(data.text)}</h${level}>`;
}

/** Deeper list nesting is cut off: bounds recursion on hostile documents. */
const MAX_LIST_DEPTH = 10;

const COUNTER_TYPES: Record<string, string> = {
  numeric: "1",
  "lower-roman": "i",
  "upper-roman": "I",
  "lower-alpha": "a",
  "upper-alpha": "A",
};

/** Editor.js list, v1 (`items` as strings) and v2 / nested-list (`{content, meta, items}`). */
function renderList(data: Data): string {
  if (!Array.isArray(data.items)) return "";
  const style = data.style === "ordered" ? "ordered" : data.style === "checklist" ? "checklist" : "unordered";
  let attrs = "";
  if (style === "ordered" && isRecord(data.meta)) {
    const start = data.meta.start;
    if (typeof start === "number" && Number.isSafeInteger(start) && start !== 1) attrs += ` start="${start}"`;
    const counter = data.meta.counterType;
    if (typeof counter === "string" && Object.hasOwn(COUNTER_TYPES, counter) && counter !== "numeric") {
      attrs += ` type="${COUNTER_TYPES[counter]}"`;
    }
  }
  return listHtml(data.items, style, attrs, 1);
}

function listHtml(items: unknown[], style: string, rootAttrs: string, depth: number): string {
  const tag = style === "ordered" ? "ol" : "ul";
  let html = "";
  for (const item of items) {
    if (typeof item === "string") {
      html += `<li>${sanitizeInlineHtml(item)}</li>`;
      continue;
    }
    if (!isRecord(item)) continue;
    let body = inline(item.content ?? item.text);
    if (style === "checklist") {
      const checked = isRecord(item.meta) && item.meta.checked === true;
      body = `${checked ? "\u2611" : "\u2610"} ${body}`;
    }
    if (Array.isArray(item.items) && item.items.length > 0 && depth < MAX_LIST_DEPTH) {
      body += listHtml(item.items, style, "", depth + 1);
    }
    html += `<li>${body}</li>`;
  }
  return html ? `<${tag}${rootAttrs}>${html}</${tag}>` : "";
}

function renderQuote(data: Data): string {
  if (typeof data.text !== "string") return "";
  const caption = inline(data.caption);
  return `<blockquote><p>${sanitizeInlineHtml(data.text)}</p>${caption ? `<cite>${caption}</cite>` : ""}</blockquote>`;
}

function renderTable(data: Data): string {
  if (!Array.isArray(data.content)) return "";
  const rows = data.content.filter((row): row is unknown[] => Array.isArray(row));
  if (rows.length === 0) return "";
  const withHeadings = data.withHeadings === true;
  const head = withHeadings ? `<thead>${tableRow(rows[0]!, "th")}</thead>` : "";
  const bodyRows = (withHeadings ? rows.slice(1) : rows).map((row) => tableRow(row, "td")).join("");
  return `<table>${head}${bodyRows ? `<tbody>${bodyRows}</tbody>` : ""}</table>`;
}

function tableRow(row: unknown[], cellTag: "th" | "td"): string {
  let html = "";
  for (const cell of row) {
    const content = typeof cell === "number" ? escapeHtml(String(cell)) : inline(cell);
    html += `<${cellTag}>${content}</${cellTag}>`;
  }
  return `<tr>${html}</tr>`;
}

/** An absolute http(s) URL, normalized by the URL parser; anything else is null. */
export function safeHttpUrl(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = stripUrlWhitespace(value);
  if (!/^https?:\/\//i.test(trimmed) || hasControlCharacter(trimmed)) return null;
  try {
    return new URL(trimmed).href;
  } catch {
    return null;
  }
}

/** Our own media URL: root-relative (not `//host`, no backslash), or absolute http(s); else null. */
function checkedMediaUrl(resolved: unknown): string | null {
  if (typeof resolved !== "string") return null;
  if (/^\/(?![/\\])[^\\\s]*$/.test(resolved) && !hasControlCharacter(resolved)) return resolved;
  return safeHttpUrl(resolved);
}

function resolveMediaUrl(mediaId: unknown, options: RenderOptions): string | null {
  if (typeof mediaId !== "string" || mediaId === "" || !options.mediaUrl) return null;
  try {
    return checkedMediaUrl(options.mediaUrl(mediaId));
  } catch {
    return null;
  }
}

/** A positive integer dimension (a number, or a string of digits). */
function dimension(value: unknown): number | null {
  const n = typeof value === "string" && /^[0-9]{1,6}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Width and height from one source that knows both: the block's data first, then the uploaded file. */
function imageSize(data: Data): { width: number; height: number } | null {
  for (const source of [data, data.file]) {
    if (!isRecord(source)) continue;
    const width = dimension(source.width);
    const height = dimension(source.height);
    if (width !== null && height !== null) return { width, height };
  }
  return null;
}

/** The asset's view for an image block's `media_id`, with every URL checked as a media URL. */
function resolveMediaImage(mediaId: unknown, options: RenderOptions): ImageView | null {
  if (typeof mediaId !== "string" || mediaId === "" || !options.mediaImage) return null;
  let view: ImageView | null;
  try {
    view = options.mediaImage(mediaId);
  } catch {
    return null;
  }
  if (!view) return null;
  const safe = (url: string) => checkedMediaUrl(url) !== null && !/[\s,]/.test(url);
  return safe(view.url) && view.variants.every((v) => safe(v.url)) ? view : null;
}

/** `sizes`: the image's full width on wide screens, the viewport's on narrower ones. */
function sizesOf(width: number | null): string {
  return width ? `(max-width: ${width}px) 100vw, ${width}px` : "100vw";
}

/** The media id of the standard image form's `file.url` when it is the platform's own media, else null. */
function ownMediaId(file: Data, options: RenderOptions): string | null {
  if (typeof file.url !== "string" || !options.mediaIdOfUrl) return null;
  try {
    return options.mediaIdOfUrl(file.url);
  } catch {
    return null;
  }
}

function renderImage(data: Data, options: RenderOptions, state: RenderState): string {
  const file = isRecord(data.file) ? data.file : {};
  const view =
    resolveMediaImage(data.media_id, options) ?? resolveMediaImage(ownMediaId(file, options), options);
  const src =
    view?.url ?? resolveMediaUrl(data.media_id, options) ?? safeHttpUrl(file.url) ?? safeHttpUrl(data.url);
  if (src === null) return "";
  const caption = typeof data.caption === "string" ? data.caption : "";
  const size =
    imageSize(data) ?? (view?.width && view.height ? { width: view.width, height: view.height } : null);
  const sizeAttrs = size ? ` width="${size.width}" height="${size.height}"` : "";
  // The first image is likely in the first screen: only the ones after it wait until they are near.
  const lazy = state.images++ > 0 ? ' loading="lazy"' : "";
  const sizes = escapeHtml(sizesOf(view?.width ?? size?.width ?? null));
  const srcset = view ? ` srcset="${escapeHtml(view.srcset)}" sizes="${sizes}"` : "";
  // The asset's own alt text first (issue 35), else the block's caption as text.
  const alt = view?.alt || inlineText(caption);
  let img = `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"${srcset}${sizeAttrs}${lazy}>`;
  const webp = view ? webpSrcset(view) : null;
  if (webp) {
    img = `<picture><source type="image/webp" srcset="${escapeHtml(webp)}" sizes="${sizes}">${img}</picture>`;
  }
  // The block's caption (inline HTML, sanitized), else the asset's caption (plain text, escaped).
  const captionHtml = sanitizeInlineHtml(caption) || (view?.caption ? escapeHtml(view.caption) : "");
  return `<figure>${img}${captionHtml ? `<figcaption>${captionHtml}</figcaption>` : ""}</figure>`;
}

/** Video and social embeds become a plain link to the source page: no third-party frame runs on the page. */
function renderEmbed(data: Data): string {
  const href = safeHttpUrl(data.source);
  if (href === null) return "";
  const caption = typeof data.caption === "string" ? data.caption : "";
  const service = typeof data.service === "string" ? data.service.trim() : "";
  const label = inlineText(caption)
    ? sanitizeInlineHtml(caption, { allowLinks: false })
    : escapeHtml(service || href);
  return `<p><a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer nofollow">${label}</a></p>`;
}
