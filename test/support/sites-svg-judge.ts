/**
 * An independent judge of sanitizer output, written with regular expressions rather than the
 * sanitizer's own parser: it lists every script-capable construct it can find. Every `<` must open a
 * recognised tag or a markup-free CDATA section (so no text can turn into markup for an HTML parser),
 * and attribute values are judged after entity decoding, whitespace removal and case folding.
 */
export function scriptCapable(svg: string): string[] {
  const findings: string[] = [];
  if (/<!DOCTYPE|<!ENTITY|<\?|<!--/i.test(svg)) findings.push("prologue, comment or processing instruction");

  const tag = /<\/?([A-Za-z][^\s/>]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/y;
  const cdata = /<!\[CDATA\[([^<>&]*?)\]\]>/y;
  const forbidden =
    /^(?:script|foreignobject|iframe|object|embed|link|meta|base|img|form|input|textarea|math|feimage|handler|listener|animate\w*|set|discard|mpath|html|body|div|p|noscript|template|xmp|noembed)$/i;
  const styleSheets: string[] = [];
  for (let i = svg.indexOf("<"); i !== -1; i = svg.indexOf("<", i + 1)) {
    tag.lastIndex = i;
    cdata.lastIndex = i;
    const m = tag.exec(svg);
    if (!m) {
      if (!cdata.exec(svg)) findings.push(`stray markup at ${i}: ${svg.slice(i, i + 30)}`);
      continue;
    }
    const name = m[1] ?? "";
    if (forbidden.test(name) || name.includes(":")) findings.push(`element ${name}`);
    if (name === "style" && !m[0].startsWith("</")) {
      const close = svg.indexOf("</style", tag.lastIndex);
      styleSheets.push(svg.slice(tag.lastIndex, close === -1 ? svg.length : close));
    }
    const attr = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
    for (let a = attr.exec(m[2] ?? ""); a !== null; a = attr.exec(m[2] ?? "")) {
      const attrName = (a[1] ?? "").toLowerCase();
      const value = decodeEntities(a[2] ?? a[3] ?? "");
      if (value === null) {
        findings.push(`undeclared entity in ${attrName}`);
        continue;
      }
      const flat = squashed(value);
      if (attrName.startsWith("on")) findings.push(`event handler ${attrName}`);
      if (/(?:java|vb|live)script:|data:text\/html/.test(flat)) findings.push(`script URL in ${attrName}`);
      const rasterImage = /^data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/.test(flat);
      if (flat.includes("data:") && !(name.toLowerCase() === "image" && rasterImage)) {
        findings.push(`data: URL in ${attrName}`);
      }
      const isHref = attrName === "href" || attrName.endsWith(":href");
      if (isHref && /^(?:use|image)$/i.test(name) && !flat.startsWith("#") && !rasterImage) {
        findings.push(`external ${name} href ${value}`);
      }
      findings.push(...cssFindings(value, attrName));
    }
  }
  for (const sheet of styleSheets) {
    const text = decodeEntities(sheet.replace(/<!\[CDATA\[|\]\]>/g, ""));
    if (text === null || text.includes("<")) findings.push("markup in style element");
    else findings.push(...cssFindings(text, "style element"));
  }
  return findings;
}

function decodeEntities(s: string): string | null {
  let unknown = false;
  const out = s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (_m, ref: string) => {
    if (ref[0] === "#") {
      const cp =
        ref[1] === "x" || ref[1] === "X"
          ? Number.parseInt(ref.slice(2), 16)
          : Number.parseInt(ref.slice(1), 10);
      return String.fromCodePoint(cp);
    }
    const named: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
    const v = named[ref];
    if (v === undefined) unknown = true;
    return v ?? "";
  });
  return unknown ? null : out;
}

function squashed(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what URL parsers skip must not hide a scheme
  return s.replace(/[\u0000-\u0020\u007f-\u00a0]/g, "").toLowerCase();
}

function cssFindings(css: string, where: string): string[] {
  const text = css
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16) || 0xfffd),
    )
    .replace(/\\(.)/g, "$1")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .toLowerCase();
  const out: string[] = [];
  if (text.includes("@import")) out.push(`@import in ${where}`);
  if (/expression\s*\(|-moz-binding|image-set\s*\(/.test(text)) out.push(`active CSS in ${where}`);
  for (const m of text.matchAll(/url\s*\(\s*["']?\s*([^"')\s]*)/g)) {
    if (!(m[1] ?? "").startsWith("#")) out.push(`external url() in ${where}: ${m[1]}`);
  }
  return out;
}
