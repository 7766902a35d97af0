/**
 * What a fetched body really is, decided from its bytes. The remote Content-Type is never trusted: a
 * host can label HTML as image/png, and whatever we store is later served from the platform's CDN
 * under our origin, so the stored type must come from the content itself.
 */
import { sanitizeSvg } from "../../../lib/svg-sanitizer";

export interface RasterType {
  contentType: string;
  ext: string;
}

function startsWith(bytes: Uint8Array, sig: readonly number[], at = 0): boolean {
  if (bytes.length < at + sig.length) return false;
  return sig.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, at: number, len: number): string {
  if (bytes.length < at + len) return "";
  return String.fromCharCode(...bytes.subarray(at, at + len));
}

function u32be(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) * 2 ** 24 +
      ((bytes[at + 1] as number) << 16) +
      ((bytes[at + 2] as number) << 8) +
      (bytes[at + 3] as number)) >>>
    0
  );
}

/** AVIF is an ISO-BMFF file whose leading `ftyp` box names `avif` or `avis` as a brand. */
function isAvif(bytes: Uint8Array): boolean {
  if (ascii(bytes, 4, 4) !== "ftyp") return false;
  const size = u32be(bytes, 0);
  if (size < 16 || size > bytes.length || size % 4 !== 0) return false;
  const brands = [ascii(bytes, 8, 4)];
  for (let at = 16; at + 4 <= size; at += 4) brands.push(ascii(bytes, at, 4));
  return brands.includes("avif") || brands.includes("avis");
}

/** ICO: reserved 0, type 1 (icon, not cursor), at least one directory entry present. */
function isIco(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return false;
  const count = (bytes[4] ?? 0) | ((bytes[5] ?? 0) << 8);
  return count >= 1 && bytes.length >= 6 + 16 * count;
}

/**
 * The raster format of `bytes` by its signature, or null. Supported: PNG, JPEG, GIF, WebP, AVIF, ICO
 * (the formats the site settings can reference). BMP is deliberately absent: its 2-byte signature
 * matches ordinary text and no setting needs it.
 */
export function sniffRaster(bytes: Uint8Array): RasterType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { contentType: "image/png", ext: "png" };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { contentType: "image/jpeg", ext: "jpg" };
  const head6 = ascii(bytes, 0, 6);
  if (head6 === "GIF87a" || head6 === "GIF89a") return { contentType: "image/gif", ext: "gif" };
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP")
    return { contentType: "image/webp", ext: "webp" };
  if (isAvif(bytes)) return { contentType: "image/avif", ext: "avif" };
  if (isIco(bytes)) return { contentType: "image/x-icon", ext: "ico" };
  return null;
}

export type SvgPrologue =
  /** `body` is the markup from the `<svg` root on; the prologue before it was harmless and is dropped. */
  | { kind: "svg"; body: string }
  /** An SVG whose prologue is itself an attack vector (internal DTD subset, stylesheet PI). */
  | { kind: "hostile" };

/**
 * Finds an `<svg` root after an optional BOM, whitespace, XML declaration, comments and DOCTYPE.
 * Returns null when the text is not an SVG document. A DOCTYPE with an internal subset (entity
 * declarations: XXE, "billion laughs") or a processing instruction other than the XML declaration
 * (`<?xml-stylesheet href=...?>` pulls external CSS) marks the document hostile.
 */
export function findSvgRoot(text: string): SvgPrologue | null {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let hostile = false;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text.startsWith("<?", i)) {
      const end = text.indexOf("?>", i + 2);
      if (end < 0) return null;
      if (!/^<\?xml\s/.test(text.slice(i, i + 6))) hostile = true;
      i = end + 2;
    } else if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4);
      if (end < 0) return null;
      i = end + 3;
    } else if (text.slice(i, i + 9).toUpperCase() === "<!DOCTYPE") {
      const close = text.indexOf(">", i);
      const bracket = text.indexOf("[", i);
      if (close < 0) return null;
      if (bracket >= 0 && bracket < close) {
        hostile = true;
        const subsetEnd = text.indexOf("]", bracket);
        const after = subsetEnd < 0 ? -1 : text.indexOf(">", subsetEnd);
        if (after < 0) return null;
        i = after + 1;
      } else {
        i = close + 1;
      }
    } else {
      break;
    }
  }
  if (!/^<svg[\s/>]/.test(text.slice(i, i + 5))) return null;
  return hostile ? { kind: "hostile" } : { kind: "svg", body: text.slice(i) };
}

export type SvgVerdict =
  | { kind: "ok"; svg: string }
  | { kind: "rejected"; reason: "hostile_svg" | "too_large" | "not_image" }
  | { kind: "not_svg" };

/** Character references decoded and URL-ignored characters dropped, as a browser would read them. */
function normalizeForScan(text: string): string {
  return (
    text
      .replace(/&#x([0-9a-f]{1,6});?/gi, (_m, hex: string) => safeChar(Number.parseInt(hex, 16)))
      .replace(/&#([0-9]{1,7});?/g, (_m, dec: string) => safeChar(Number.parseInt(dec, 10)))
      .replace(/&(tab|newline|colon|lpar|rpar);/gi, (_m, name: string) => NAMED[name.toLowerCase()] ?? "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are ignored inside URLs
      .replace(/[\u0000-\u0020\u007f-\u00a0\u200b-\u200f\u2028\u2029\ufeff]+/g, " ")
  );
}

const NAMED: Record<string, string> = { tab: " ", newline: " ", colon: ":", lpar: "(", rpar: ")" };

function safeChar(cp: number): string {
  return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
}

/**
 * Markers of ACTIVE content: what runs script, embeds another document, or loads from the network
 * when the SVG is shown. Their presence is what makes an SVG "hostile" (spec: a definitive
 * rejection). It is a classifier, not the defence: whatever passes it is still stored only as the
 * sanitizer's output, so a marker it misses ends up removed rather than stored.
 */
const ACTIVE_CONTENT: readonly RegExp[] = [
  /<\s*(?:[a-z][\w.-]*:)?(?:script|foreignObject|iframe|frame|frameset|embed|object|applet|link|meta|base|handler|listener)\b/i,
  // event handler attributes inside any tag
  /<[a-z][^>]*?\s(?:[a-z][\w.-]*:)?on[a-z0-9_-]*\s*=/i,
  // script URLs, whitespace inside the scheme included (`java script:` after normalizing)
  /(?:j\s*a\s*v\s*a|v\s*b|l\s*i\s*v\s*e|m\s*o\s*z\s*-?)\s*s\s*c\s*r\s*i\s*p\s*t\s*:|mocha:|-moz-binding|expression\s*\(/i,
  // data: URLs other than an embedded raster image (HTML, nested SVG, scripts)
  /(?<![\w-])data\s*:(?!\s*image\/(?:png|jpe?g|gif|webp|avif)[;,])/i,
  // use/image/feImage pointing outside the document (network fetch, external SVG)
  /<\s*(?:use|feImage)\b[^>]*?\s(?:xlink:)?href\s*=(?!\s*["']?\s*#)/i,
  /<\s*image\b[^>]*?\s(?:xlink:)?href\s*=(?!\s*["']?\s*(?:#|data\s*:\s*image\/(?:png|jpe?g|gif|webp|avif)[;,]))/i,
  // CSS loading from outside the document
  /@import/i,
  /url\s*\((?!\s*["']?\s*#)/i,
  // animation retargeting a link or a handler (`<set attributeName="href" to="javascript:...">`)
  /<\s*(?:set|animate\w*)\b[^>]*?attributeName\s*=\s*["']?\s*(?:(?:xlink:)?href|on)/i,
  /<!ENTITY/i,
];

function countUses(markup: string): number {
  return markup.replace(/<!--[\s\S]*?-->/g, "").match(/<use\b/g)?.length ?? 0;
}

export function hasActiveContent(text: string): boolean {
  const scanned = normalizeForScan(text);
  return ACTIVE_CONTENT.some((re) => re.test(scanned));
}

/**
 * Decides an SVG image.
 * - Sanitizer refusal: `too_large` stays `too_large`; unparseable or not really SVG is `not_image`.
 * - Active content (see ACTIVE_CONTENT), a hostile prologue, or `use` elements the sanitizer had to
 *   prune (reference loops, expansion bombs): `hostile_svg`, even though the sanitizer could clean
 *   it: the spec makes a hostile SVG a definitive rejection.
 * - Otherwise the sanitizer's output is what gets stored. For a clean SVG it is byte-for-byte the
 *   fetched root element; benign removals (comments, editor metadata, unknown attributes, the
 *   prologue) are dropped silently instead of refusing ordinary design-tool exports.
 */
export function judgeSvg(bytes: Uint8Array): SvgVerdict {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { kind: "not_svg" };
  }
  const root = findSvgRoot(text);
  if (!root) return { kind: "not_svg" };
  if (root.kind === "hostile" || hasActiveContent(root.body))
    return { kind: "rejected", reason: "hostile_svg" };
  const result = sanitizeSvg(root.body);
  if (!result.ok) {
    return { kind: "rejected", reason: result.reason === "too_large" ? "too_large" : "not_image" };
  }
  // Every `use` left here points inside the document, so one the sanitizer dropped was part of a
  // reference loop or an expansion bomb: denial of service against whoever renders the file.
  if (countUses(result.svg) < countUses(root.body)) return { kind: "rejected", reason: "hostile_svg" };
  return { kind: "ok", svg: result.svg };
}
