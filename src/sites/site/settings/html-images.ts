/**
 * Finds `<img>` `src` and `srcset` in an HTML fragment (`settings.about_html`) and rewrites one
 * URL. A small tokenizer, not a regex over the string: it walks every tag with its quoted
 * attribute values and skips comments, so `<a title="<img src=x>">` or a commented-out image is
 * not mistaken for an image. Raw-text elements (script, style, textarea) are not special-cased: an
 * `<img>` written inside one is collected too, which only over-collects (that URL is ingested and
 * rewritten like the others) and never misses an image a browser would load.
 */

export interface ImgAttribute {
  name: "src" | "srcset";
  /** Decoded value (entities resolved), as the browser sees it. */
  value: string;
  /** Offsets of the raw value in the markup, quotes included. */
  start: number;
  end: number;
}

export interface ImgTag {
  attributes: ImgAttribute[];
}

export interface SrcsetCandidate {
  url: string;
  start: number;
  end: number;
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function decodeEntities(value: string): string {
  return value.replace(/&(#[0-9]+|#x[0-9a-f]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X"
          ? Number.parseInt(body.slice(2), 16)
          : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

export function encodeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function isSpace(ch: string | undefined): boolean {
  return ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f";
}

/** Every `<img>` tag in document order, with its first `src` and first `srcset` (later duplicates are ignored, as browsers do). */
export function scanImgTags(html: string): ImgTag[] {
  const tags: ImgTag[] = [];
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf("<", i);
    if (open < 0) break;
    if (html.startsWith("<!--", open)) {
      const close = html.indexOf("-->", open + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    const nameMatch = /^<\/?([a-zA-Z][^\s/>]*)/.exec(html.slice(open, open + 64));
    if (!nameMatch) {
      i = open + 1;
      continue;
    }
    const isImg = nameMatch[0][1] !== "/" && nameMatch[1]?.toLowerCase() === "img";
    const attributes: ImgAttribute[] = [];
    let p = open + nameMatch[0].length;
    while (p < html.length) {
      while (p < html.length && (isSpace(html[p]) || html[p] === "/")) p++;
      if (p >= html.length || html[p] === ">") break;
      const nameStart = p;
      while (p < html.length && !isSpace(html[p]) && html[p] !== "=" && html[p] !== ">" && html[p] !== "/")
        p++;
      if (p === nameStart) p++;
      const attrName = html.slice(nameStart, p).toLowerCase();
      let q = p;
      while (q < html.length && isSpace(html[q])) q++;
      if (html[q] !== "=") continue;
      q++;
      while (q < html.length && isSpace(html[q])) q++;
      const valueStart = q;
      let raw: string;
      const quote = html[q];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, q + 1);
        const valueEnd = close < 0 ? html.length : close;
        raw = html.slice(q + 1, valueEnd);
        p = close < 0 ? html.length : close + 1;
      } else {
        while (q < html.length && !isSpace(html[q]) && html[q] !== ">") q++;
        raw = html.slice(valueStart, q);
        p = q;
      }
      if (
        isImg &&
        (attrName === "src" || attrName === "srcset") &&
        !attributes.some((a) => a.name === attrName)
      ) {
        attributes.push({ name: attrName, value: decodeEntities(raw), start: valueStart, end: p });
      }
    }
    if (isImg) tags.push({ attributes });
    i = p + 1;
  }
  return tags;
}

/** Splits a srcset into its URLs with their offsets (HTML's "parse a srcset attribute", URL part). */
export function parseSrcset(value: string): SrcsetCandidate[] {
  const candidates: SrcsetCandidate[] = [];
  let p = 0;
  while (p < value.length) {
    while (p < value.length && (isSpace(value[p]) || value[p] === ",")) p++;
    if (p >= value.length) break;
    const start = p;
    while (p < value.length && !isSpace(value[p])) p++;
    let end = p;
    if (value[end - 1] === ",") {
      while (end > start && value[end - 1] === ",") end--;
      candidates.push({ url: value.slice(start, end), start, end });
      continue;
    }
    candidates.push({ url: value.slice(start, end), start, end });
    let depth = 0;
    while (p < value.length) {
      const ch = value[p];
      if (ch === "(") depth++;
      else if (ch === ")") depth = Math.max(0, depth - 1);
      else if (ch === "," && depth === 0) break;
      p++;
    }
    p++;
  }
  return candidates;
}
