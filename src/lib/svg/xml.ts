/**
 * A small, strict, DOM-free XML parser for SVG documents. It never expands entities (no DTD is ever
 * read, so billion-laughs and external entities are inert) and keeps the source offsets of every
 * construct, so the sanitizer can re-emit kept parts byte-for-byte and drop only removed ranges.
 *
 * It is stricter than browsers' HTML parser on purpose: anything that XML and HTML could read
 * differently (unquoted attributes, `<` inside attribute values, `&` not starting a complete
 * reference, control characters, `/` inside a start tag) is refused as malformed, so the markup we
 * keep means the same thing whether it is served as image/svg+xml or inlined into an HTML page.
 */

export const XML_WS = /[ \t\r\n]/;
export const MAX_NESTING = 256;

export interface Attr {
  name: string;
  /** Start of the whitespace before the name: removing [start, end) leaves a well-formed tag. */
  start: number;
  end: number;
  /** Value with predefined and numeric references decoded; null when it uses an undeclared entity. */
  value: string | null;
}

export type TextPiece =
  | { kind: "chars"; start: number; end: number }
  | { kind: "ref"; start: number; end: number; decoded: string | null };

export interface TextNode {
  kind: "text";
  start: number;
  end: number;
  pieces: TextPiece[];
}

export interface CDataNode {
  kind: "cdata";
  start: number;
  end: number;
  content: string;
}

export interface SkippedNode {
  kind: "comment" | "pi";
  start: number;
  end: number;
}

export interface ElementNode {
  kind: "element";
  name: string;
  start: number;
  nameEnd: number;
  attrs: Attr[];
  /** From the end of the last attribute to the end of the start tag (whitespace, `/`, `>`). */
  tailStart: number;
  startTagEnd: number;
  selfClosing: boolean;
  children: XmlNode[];
  endTagStart: number;
  end: number;
  parent: ElementNode | null;
}

export type XmlNode = ElementNode | TextNode | CDataNode | SkippedNode;

export interface XmlDocument {
  root: ElementNode;
  /** Whitespace text after the root element (kept so a trailing newline survives). */
  trailingWhitespace: TextNode[];
}

export type ParseResult = { ok: true; doc: XmlDocument } | { ok: false; reason: "not_svg" | "malformed" };

class Malformed extends Error {}
class NotSvg extends Error {}

// Chars outside the XML 1.0 Char production (C0 controls, lone surrogates, U+FFFE/U+FFFF) are refused:
// NUL and friends are classic filter-evasion tools (`java\0script:`).
const INVALID_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NAME = /[A-Za-z_:\u00C0-\uFFFF][A-Za-z0-9_:.\-\u00B7\u00C0-\uFFFF]*/y;
const REF =
  /&(?:#([0-9]{1,8})|#x([0-9A-Fa-f]{1,8})|([A-Za-z_:\u00C0-\uFFFF][A-Za-z0-9_:.\-\u00B7\u00C0-\uFFFF]*));/y;
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Splits [start, end) into literal runs and references; throws Malformed on a bare `&`. */
function scanRefs(src: string, start: number, end: number): TextPiece[] {
  const pieces: TextPiece[] = [];
  let runStart = start;
  const nextAmp = (from: number): number => {
    for (let k = from; k < end; k++) if (src.charCodeAt(k) === 0x26) return k;
    return -1;
  };
  let i = nextAmp(start);
  while (i !== -1) {
    REF.lastIndex = i;
    const m = REF.exec(src);
    if (!m || REF.lastIndex > end) throw new Malformed();
    if (i > runStart) pieces.push({ kind: "chars", start: runStart, end: i });
    let decoded: string | null;
    if (m[3] !== undefined) {
      decoded = PREDEFINED[m[3]] ?? null;
    } else {
      const cp = m[1] !== undefined ? Number.parseInt(m[1], 10) : Number.parseInt(m[2] ?? "", 16);
      if (!isXmlChar(cp)) throw new Malformed();
      decoded = String.fromCodePoint(cp);
    }
    pieces.push({ kind: "ref", start: i, end: REF.lastIndex, decoded });
    runStart = REF.lastIndex;
    i = nextAmp(runStart);
  }
  if (runStart < end) pieces.push({ kind: "chars", start: runStart, end });
  return pieces;
}

function decodePieces(src: string, pieces: TextPiece[]): string | null {
  let out = "";
  for (const p of pieces) {
    if (p.kind === "chars") out += src.slice(p.start, p.end);
    else if (p.decoded === null) return null;
    else out += p.decoded;
  }
  return out;
}

/** Decoded text of a text node, skipping undeclared entity references (they are dropped on output). */
export function textOf(src: string, node: TextNode): string {
  let out = "";
  for (const p of node.pieces) {
    if (p.kind === "chars") out += src.slice(p.start, p.end);
    else if (p.decoded !== null) out += p.decoded;
  }
  return out;
}

function readName(src: string, at: number): string | null {
  NAME.lastIndex = at;
  const m = NAME.exec(src);
  return m ? m[0] : null;
}

function skipWs(src: string, at: number): number {
  let i = at;
  while (i < src.length && XML_WS.test(src.charAt(i))) i++;
  return i;
}

function find(src: string, token: string, from: number): number {
  const i = src.indexOf(token, from);
  if (i === -1) throw new Malformed();
  return i + token.length;
}

/** Skips `<!DOCTYPE ...>` including an internal subset with quoted strings and comments. */
function skipDoctype(src: string, at: number): number {
  let i = at + "<!DOCTYPE".length;
  let depth = 0;
  while (i < src.length) {
    const c = src.charAt(i);
    if (c === '"' || c === "'") {
      i = find(src, c, i + 1);
      continue;
    }
    if (src.startsWith("<!--", i)) {
      i = find(src, "-->", i + 4);
      continue;
    }
    if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === ">" && depth <= 0) return i + 1;
    i++;
  }
  throw new Malformed();
}

function parseStartTag(src: string, at: number, parent: ElementNode | null): ElementNode {
  const name = readName(src, at + 1);
  if (name === null) throw new Malformed();
  const nameEnd = at + 1 + name.length;
  const attrs: Attr[] = [];
  const seen = new Set<string>();
  let p = nameEnd;
  for (;;) {
    const wsStart = p;
    p = skipWs(src, p);
    if (src.charAt(p) === ">" || src.startsWith("/>", p)) {
      const selfClosing = src.charAt(p) === "/";
      const startTagEnd = p + (selfClosing ? 2 : 1);
      return {
        kind: "element",
        name,
        start: at,
        nameEnd,
        attrs,
        tailStart: wsStart,
        startTagEnd,
        selfClosing,
        children: [],
        endTagStart: startTagEnd,
        end: startTagEnd,
        parent,
      };
    }
    if (p === wsStart) throw new Malformed();
    const attrName = readName(src, p);
    if (attrName === null || seen.has(attrName)) throw new Malformed();
    seen.add(attrName);
    p = skipWs(src, p + attrName.length);
    if (src.charAt(p) !== "=") throw new Malformed();
    p = skipWs(src, p + 1);
    const quote = src.charAt(p);
    if (quote !== '"' && quote !== "'") throw new Malformed();
    const close = src.indexOf(quote, p + 1);
    if (close === -1) throw new Malformed();
    const raw = src.slice(p + 1, close);
    if (raw.includes("<")) throw new Malformed();
    const value = decodePieces(src, scanRefs(src, p + 1, close));
    attrs.push({ name: attrName, start: wsStart, end: close + 1, value });
    p = close + 1;
  }
}

function parseText(src: string, at: number, end: number): TextNode {
  const raw = src.slice(at, end);
  if (raw.includes("]]>")) throw new Malformed();
  return { kind: "text", start: at, end, pieces: scanRefs(src, at, end) };
}

function parseDocument(input: string): XmlDocument {
  const src = input;
  if (INVALID_CHAR.test(src)) throw new Malformed();
  let i = src.charCodeAt(0) === 0xfeff ? 1 : 0;
  let sawDoctype = false;

  // Prolog: XML declaration, comments, processing instructions, one DOCTYPE. All of it is dropped.
  for (;;) {
    i = skipWs(src, i);
    if (i >= src.length || src.charAt(i) !== "<") throw new NotSvg();
    if (src.startsWith("<?", i)) i = find(src, "?>", i + 2);
    else if (src.startsWith("<!--", i)) i = find(src, "-->", i + 4);
    else if (src.slice(i, i + 9).toUpperCase() === "<!DOCTYPE") {
      if (sawDoctype) throw new Malformed();
      sawDoctype = true;
      i = skipDoctype(src, i);
    } else if (src.startsWith("<!", i)) throw new Malformed();
    else break;
  }

  const rootName = readName(src, i + 1);
  if (rootName === null) throw new NotSvg();
  if (rootName !== "svg") throw new NotSvg();
  const root = parseStartTag(src, i, null);
  i = root.startTagEnd;
  const stack: ElementNode[] = root.selfClosing ? [] : [root];

  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (i >= src.length) throw new Malformed();
    if (src.charAt(i) !== "<") {
      let next = src.indexOf("<", i);
      if (next === -1) next = src.length;
      top.children.push(parseText(src, i, next));
      i = next;
      continue;
    }
    if (src.startsWith("</", i)) {
      const name = readName(src, i + 2);
      if (name !== top.name) throw new Malformed();
      const p = skipWs(src, i + 2 + name.length);
      if (src.charAt(p) !== ">") throw new Malformed();
      top.endTagStart = i;
      top.end = p + 1;
      i = p + 1;
      stack.pop();
    } else if (src.startsWith("<!--", i)) {
      const end = find(src, "-->", i + 4);
      top.children.push({ kind: "comment", start: i, end });
      i = end;
    } else if (src.startsWith("<![CDATA[", i)) {
      const end = find(src, "]]>", i + 9);
      top.children.push({ kind: "cdata", start: i, end, content: src.slice(i + 9, end - 3) });
      i = end;
    } else if (src.startsWith("<?", i)) {
      const end = find(src, "?>", i + 2);
      top.children.push({ kind: "pi", start: i, end });
      i = end;
    } else if (src.startsWith("<!", i)) {
      throw new Malformed();
    } else {
      const el = parseStartTag(src, i, top);
      top.children.push(el);
      i = el.startTagEnd;
      if (!el.selfClosing) {
        if (stack.length >= MAX_NESTING) throw new Malformed();
        stack.push(el);
      }
    }
  }

  // Epilog: whitespace is kept, comments and processing instructions are dropped, anything else is junk.
  const trailingWhitespace: TextNode[] = [];
  while (i < src.length) {
    const ws = skipWs(src, i);
    if (ws > i) {
      trailingWhitespace.push({
        kind: "text",
        start: i,
        end: ws,
        pieces: [{ kind: "chars", start: i, end: ws }],
      });
      i = ws;
    } else if (src.startsWith("<?", i)) i = find(src, "?>", i + 2);
    else if (src.startsWith("<!--", i)) i = find(src, "-->", i + 4);
    else throw new Malformed();
  }
  return { root, trailingWhitespace };
}

/** Parses an SVG document; never throws. */
export function parseSvgDocument(input: string): ParseResult {
  try {
    return { ok: true, doc: parseDocument(input) };
  } catch (e) {
    if (e instanceof NotSvg) return { ok: false, reason: "not_svg" };
    if (e instanceof Malformed) return { ok: false, reason: "malformed" };
    // A bug here must never become a 500 nor let markup through: refuse.
    return { ok: false, reason: "malformed" };
  }
}
