/**
 * Inline HTML of Editor.js block text, sanitized against an allowlist. Workers have no DOM, so this is a
 * small tolerant tokenizer that follows the HTML standard where it matters for safety (tag and attribute
 * syntax, comments, raw-text elements, character references). Output is never the input passed through:
 * it is rebuilt from tokens, text escaped and the few kept attributes escaped and quoted, so whatever the
 * tokenizer misjudges can at worst show up as visible text, never as markup.
 */
import { decodeEntities } from "./html-entities";

/** Escapes text for an element body or a double-quoted attribute value. */
export function escapeHtml(value: string): string {
  if (!/[&<>"']/.test(value)) return value;
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Tags kept (without attributes, except a vetted `href` on `a`). */
export const INLINE_ALLOWED_TAGS: ReadonlySet<string> = new Set(
  "b strong i em u s mark code a br sub sup span small".split(" "),
);

/** Tags whose content is dropped with them: script containers, foreign content and form controls. */
export const CONTENT_DROPPED_TAGS: ReadonlySet<string> = new Set([
  ..."script style iframe object embed form template noscript svg math".split(" "),
  ..."textarea title xmp noembed noframes plaintext".split(" "),
]);

/** Elements whose content the browser does not parse as markup (it runs to the matching end tag). */
const RAW_TEXT_TAGS = new Set("script style xmp iframe noembed noframes noscript textarea title".split(" "));

const VOID_TAGS = new Set("area base br col embed hr img input link meta param source track wbr".split(" "));

/** Deeper nesting than this is ignored (its text is kept): bounds output size and stack depth. */
const MAX_OPEN_ELEMENTS = 32;

export type HtmlToken =
  | { kind: "text"; text: string }
  | { kind: "start"; name: string; attrs: Map<string, string>; selfClosing: boolean }
  | { kind: "end"; name: string };

/** Tab, LF, FF, CR, space: the separators of the HTML tokenizer. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

const SLASH = 47;
const GT = 62;
const EQUALS = 61;
const BANG = 33;
const QUESTION = 63;

/** ASCII-only lowercasing, as the HTML tokenizer does (`toLowerCase` would turn U+212A KELVIN into `k`). */
function asciiLower(value: string): string {
  return /[A-Z]/.test(value)
    ? value.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
    : value;
}

interface ParsedTag {
  name: string;
  attrs: Map<string, string>;
  selfClosing: boolean;
  end: number;
}

/**
 * Parses a tag whose name starts at `from`. Returns null at end of input inside the tag: the browser then
 * drops the unfinished tag and everything after it, and so do we.
 */
function parseTag(s: string, from: number): ParsedTag | null {
  const n = s.length;
  let i = from;
  let c = s.charCodeAt(i);
  while (i < n && !isSpace(c) && c !== SLASH && c !== GT) c = s.charCodeAt(++i);
  const name = asciiLower(s.slice(from, i));
  const attrs = new Map<string, string>();
  for (;;) {
    while (i < n && (isSpace(s.charCodeAt(i)) || (s.charCodeAt(i) === SLASH && s.charCodeAt(i + 1) !== GT)))
      i++;
    if (i >= n) return null;
    if (s.charCodeAt(i) === GT) return { name, attrs, selfClosing: false, end: i + 1 };
    if (s.charCodeAt(i) === SLASH) return { name, attrs, selfClosing: true, end: i + 2 };
    const nameStart = i;
    c = s.charCodeAt(++i); // The first character is part of the name even when it is `=`.
    while (i < n && !isSpace(c) && c !== SLASH && c !== GT && c !== EQUALS) c = s.charCodeAt(++i);
    const attrName = asciiLower(s.slice(nameStart, i));
    let j = i;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    let value = "";
    if (s.charCodeAt(j) === EQUALS) {
      j++;
      while (j < n && isSpace(s.charCodeAt(j))) j++;
      const quote = s[j];
      if (quote === '"' || quote === "'") {
        const close = s.indexOf(quote, j + 1);
        if (close < 0) return null;
        value = s.slice(j + 1, close);
        i = close + 1;
      } else {
        const valueStart = j;
        c = s.charCodeAt(j);
        while (j < n && !isSpace(c) && c !== GT) c = s.charCodeAt(++j);
        value = s.slice(valueStart, j);
        i = j;
      }
    }
    if (!attrs.has(attrName)) attrs.set(attrName, decodeEntities(value, true));
  }
}

/** Index after the `>` closing a bogus comment (`<!x`, `<?x`, `</1`), or the end of input. */
function bogusCommentEnd(s: string, from: number): number {
  const close = s.indexOf(">", from);
  return close < 0 ? s.length : close + 1;
}

/** Index after a comment whose body starts at `bodyStart`: `-->` or `--!>` ends it, `<!-->` and `<!--->` are empty. */
function commentEnd(s: string, bodyStart: number): number {
  if (s[bodyStart] === ">") return bodyStart + 1;
  if (s.startsWith("->", bodyStart)) return bodyStart + 2;
  for (let k = s.indexOf("--", bodyStart); k >= 0; k = s.indexOf("--", k + 1)) {
    if (s.charCodeAt(k + 2) === GT) return k + 3;
    if (s[k + 2] === "!" && s.charCodeAt(k + 3) === GT) return k + 4;
  }
  return s.length;
}

/** Where the raw text of `name` ends: the next `</name` followed by a separator, `/` or `>`. */
function rawTextEnd(s: string, name: string, from: number): number {
  const pattern = new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi");
  pattern.lastIndex = from;
  return pattern.exec(s)?.index ?? -1;
}

/**
 * Tokenizes HTML the tolerant way a browser does; comments, doctypes, CDATA and processing instructions
 * vanish. Linear in the input: every scan moves forward and never revisits what it consumed.
 */
export function* tokenizeHtml(input: string): Generator<HtmlToken> {
  // NUL bytes are removed up front so `java\0script:` or `<scr\0ipt>` are judged as what they spell.
  const s = input.replace(/\r\n?/g, "\n").replace(/\0/g, "");
  const n = s.length;
  let text = ""; // text collected before `textFrom`; a stray `<` simply stays part of the pending run
  let textFrom = 0;
  /** The pending text up to `until` as a token (references decoded), or null when there is none. */
  const takeText = (until: number): HtmlToken | null => {
    const raw = text + s.slice(textFrom, until);
    text = "";
    return raw ? { kind: "text", text: decodeEntities(raw, false) } : null;
  };
  let pending: HtmlToken | null;
  let i = 0;
  while (i < n) {
    const lt = s.indexOf("<", i);
    if (lt < 0) break;
    const next = s.charCodeAt(lt + 1);
    if (isAsciiLetter(next) || (next === SLASH && isAsciiLetter(s.charCodeAt(lt + 2)))) {
      const isEnd = next === SLASH;
      const tag = parseTag(s, lt + (isEnd ? 2 : 1));
      pending = takeText(lt);
      if (pending) yield pending;
      if (!tag) return;
      i = textFrom = tag.end;
      if (isEnd) {
        yield { kind: "end", name: tag.name };
        continue;
      }
      yield { kind: "start", name: tag.name, attrs: tag.attrs, selfClosing: tag.selfClosing };
      if (tag.name === "plaintext") {
        if (i < n) yield { kind: "text", text: s.slice(i) };
        return;
      }
      if (RAW_TEXT_TAGS.has(tag.name)) {
        const found = rawTextEnd(s, tag.name, i);
        const rawEnd = found < 0 ? n : found;
        if (rawEnd > i) yield { kind: "text", text: s.slice(i, rawEnd) };
        const close = found < 0 ? null : parseTag(s, found + 2);
        if (!close) return;
        yield { kind: "end", name: tag.name };
        i = textFrom = close.end;
      }
      continue;
    }
    let skipTo = -1;
    if (next === SLASH) {
      const after = s.charCodeAt(lt + 2);
      // `</>` is nothing; `</` before anything but a letter opens a bogus comment; `</` at the end is text.
      if (after === GT) skipTo = lt + 3;
      else if (lt + 2 < n) skipTo = bogusCommentEnd(s, lt + 2);
    } else if (next === BANG) {
      skipTo = s.startsWith("--", lt + 2) ? commentEnd(s, lt + 4) : bogusCommentEnd(s, lt + 2);
    } else if (next === QUESTION) {
      skipTo = bogusCommentEnd(s, lt + 2);
    }
    if (skipTo < 0) {
      i = lt + 1; // a stray `<` is text
      continue;
    }
    text += s.slice(textFrom, lt);
    i = textFrom = skipTo;
  }
  pending = takeText(n);
  if (pending) yield pending;
}

// The next three patterns match control characters on purpose: they are what URL tricks are made of.
// biome-ignore lint/suspicious/noControlCharactersInRegex: see above
const URL_EDGE_SPACE = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: see above
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: see above
const INVISIBLE_IN_TEXT = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g;

/** What the URL parser does first: strip leading/trailing C0 controls and spaces, drop every tab and newline. */
export function stripUrlWhitespace(value: string): string {
  return value.replace(URL_EDGE_SPACE, "").replace(/[\t\n\r]/g, "");
}

export function hasControlCharacter(value: string): boolean {
  return CONTROL_CHARACTER.test(value);
}

const SAFE_LINK_SCHEME = /^(?:https?|mailto):/i;

/**
 * Vets a decoded `href`: http, https, mailto or relative. Returns the value to emit, or null. Leading and
 * trailing controls/spaces and embedded tabs/newlines are removed the way the URL parser removes them, so
 * `&#14; java&Tab;script:` is judged as `javascript:`. A value is relative only when no `:` comes before its
 * first `/`, `?` or `#`: whatever else hides in front of a colon (`\u200bjavascript:`, `java\u00adscript:`)
 * is refused rather than guessed about. Control characters left inside are refused too.
 */
export function safeLinkHref(decoded: string): string | null {
  const value = stripUrlWhitespace(decoded);
  if (hasControlCharacter(value)) return null;
  if (SAFE_LINK_SCHEME.test(value)) return value;
  const beforePath = value.split(/[/?#]/, 1)[0] ?? "";
  return beforePath.includes(":") ? null : value;
}

/**
 * The tokens a reader sees: a content-dropping element (script, svg, form...) is removed together with
 * everything up to its matching end tag, or to the end of input when it is never closed.
 */
function* visibleTokens(html: string): Generator<HtmlToken> {
  let dropping: { name: string; depth: number } | null = null;
  for (const token of tokenizeHtml(html)) {
    if (dropping) {
      if (token.kind === "start" && token.name === dropping.name && !token.selfClosing) dropping.depth++;
      if (token.kind === "end" && token.name === dropping.name && --dropping.depth === 0) dropping = null;
      continue;
    }
    if (token.kind === "start" && CONTENT_DROPPED_TAGS.has(token.name)) {
      const selfClosedForeign = token.selfClosing && (token.name === "svg" || token.name === "math");
      if (!VOID_TAGS.has(token.name) && !selfClosedForeign) dropping = { name: token.name, depth: 1 };
      continue;
    }
    yield token;
  }
}

export interface InlineOptions {
  /** False inside text that is itself a link (embed caption): nested anchors are dropped, text kept. */
  allowLinks?: boolean;
}

/** Sanitizes inline HTML to the allowlist; always returns well-formed markup. */
export function sanitizeInlineHtml(html: string, options: InlineOptions = {}): string {
  const allowLinks = options.allowLinks ?? true;
  const open: string[] = [];
  let out = "";
  const closeThrough = (index: number) => {
    while (open.length > index) out += `</${open.pop()}>`;
  };
  for (const token of visibleTokens(html)) {
    if (token.kind === "text") {
      out += escapeHtml(stripControls(token.text));
      continue;
    }
    if (token.kind === "end") {
      if (token.name === "br") out += "<br>"; // `</br>` is a line break to a browser too.
      const index = open.lastIndexOf(token.name);
      if (index >= 0) closeThrough(index);
      continue;
    }
    const name = token.name;
    if (!INLINE_ALLOWED_TAGS.has(name) || (name === "a" && !allowLinks)) continue;
    if (name === "br") {
      out += "<br>";
      continue;
    }
    if (open.length >= MAX_OPEN_ELEMENTS) continue;
    if (name === "a") {
      // Anchors do not nest: a new one closes the open one, as in the browser.
      const index = open.lastIndexOf("a");
      if (index >= 0) closeThrough(index);
      out += `<a${anchorAttributes(token.attrs)}>`;
    } else {
      out += `<${name}>`;
    }
    open.push(name);
  }
  closeThrough(0);
  return out;
}

/** Only a vetted `href`; `target` and `rel` are ours, never copied from the input. */
function anchorAttributes(attrs: Map<string, string>): string {
  const rawHref = attrs.get("href");
  const href = rawHref === undefined ? null : safeLinkHref(rawHref);
  if (href === null) return "";
  const newTab = attrs.has("target") ? ' target="_blank" rel="noopener noreferrer nofollow"' : "";
  return ` href="${escapeHtml(href)}"${newTab}`;
}

function stripControls(text: string): string {
  return text.replace(INVISIBLE_IN_TEXT, "");
}

/** The visible text of inline HTML (for `alt`): tags and dropped content removed, whitespace collapsed. */
export function inlineText(html: string): string {
  let text = "";
  for (const token of visibleTokens(html)) {
    if (token.kind === "text") text += token.text;
    else if (token.name === "br") text += " ";
  }
  return stripControls(text).replace(/\s+/g, " ").trim();
}
