/**
 * Independent judge of rendered `content_html`: a strict scanner (deliberately not the renderer's own
 * tokenizer) that lists everything in a piece of HTML that could run script or escape the allowlist.
 * Well-formed output is part of the contract, so anything it cannot read as a plain tag is a finding.
 */

const INLINE_TAGS = "b strong i em u s mark code a br sub sup span small".split(" ");
const BLOCK_TAGS =
  "p h1 h2 h3 h4 h5 h6 ul ol li blockquote cite pre hr figure figcaption picture source img table thead tbody tr th td";
export const OUTPUT_ALLOWED_TAGS: ReadonlySet<string> = new Set([...INLINE_TAGS, ...BLOCK_TAGS.split(" ")]);
const VOID_TAGS = new Set(["br", "hr", "img", "source"]);
const ALLOWED_ATTRIBUTES: Record<string, ReadonlySet<string>> = {
  a: new Set(["href", "target", "rel"]),
  img: new Set(["src", "alt", "width", "height", "loading", "srcset", "sizes"]),
  source: new Set(["type", "srcset", "sizes"]),
  ol: new Set(["start", "type"]),
};
const FORBIDDEN_MARKUP = [
  "script",
  "iframe",
  "form",
  "svg",
  "math",
  "style",
  "object",
  "embed",
  "base",
  "meta",
  "link",
];

const START_TAG = /^<([a-z][a-z0-9]*)((?:[ ]+[a-z][a-z-]*="[^"<>]*")*)>/;
const END_TAG = /^<\/([a-z][a-z0-9]*)>/;
const ATTRIBUTE = /([a-z][a-z-]*)="([^"<>]*)"/g;

/** Decodes the references an escaper emits; anything else in a URL is reported rather than guessed. */
function decodeAttribute(value: string): string | null {
  let undecodable = false;
  const decoded = value.replace(/&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);?/g, (_m, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (Object.hasOwn(named, ref)) return named[ref]!;
    undecodable = true;
    return "";
  });
  return undecodable ? null : decoded;
}

/** The URL as a browser would judge its scheme: every control, space and invisible character removed. */
function schemeProbe(url: string): string {
  return url.replace(/[\s\p{Cc}\p{Cf}]/gu, "").toLowerCase();
}

export function isSafeHref(url: string): boolean {
  const probe = schemeProbe(url);
  if (/^(?:https?|mailto):/.test(probe)) return true;
  return !(probe.split(/[/?#]/, 1)[0] ?? "").includes(":");
}

export function isSafeSrc(url: string): boolean {
  const probe = schemeProbe(url);
  return /^https?:\/\//.test(probe) || /^\/(?![/\\])/.test(probe);
}

/** Every reason `html` is not safe, well-formed allowlisted markup; empty when it is. */
export function findUnsafeHtml(html: string): string[] {
  const findings: string[] = [];
  const lower = html.toLowerCase();
  for (const tag of FORBIDDEN_MARKUP) if (lower.includes(`<${tag}`)) findings.push(`contains <${tag}`);
  const open: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const text = html.slice(i, lt < 0 ? html.length : lt);
    if (text.includes(">")) findings.push(`unescaped ">" in text ${JSON.stringify(text.slice(0, 60))}`);
    if (/&(?![a-zA-Z]+;|#[0-9]+;|#x[0-9a-fA-F]+;)/.test(text)) findings.push("bare & in text");
    if (lt < 0) break;
    const rest = html.slice(lt);
    const end = END_TAG.exec(rest);
    if (end) {
      const name = end[1]!;
      if (VOID_TAGS.has(name)) findings.push(`end tag of void <${name}>`);
      else if (open.at(-1) !== name)
        findings.push(`</${name}> does not close the open <${open.at(-1) ?? "(none)"}>`);
      else open.pop();
      i = lt + end[0].length;
      continue;
    }
    const start = START_TAG.exec(rest);
    if (!start) {
      findings.push(`not a well-formed tag at ${JSON.stringify(rest.slice(0, 60))}`);
      i = lt + 1;
      continue;
    }
    const name = start[1]!;
    if (!OUTPUT_ALLOWED_TAGS.has(name)) findings.push(`element <${name}> outside the allowlist`);
    const attributes = new Map<string, string>();
    for (const [, attr, raw] of start[2]!.matchAll(ATTRIBUTE)) {
      if (attributes.has(attr!)) findings.push(`duplicate attribute ${attr} on <${name}>`);
      if (attr!.startsWith("on")) findings.push(`event handler ${attr} on <${name}>`);
      else if (!ALLOWED_ATTRIBUTES[name]?.has(attr!)) findings.push(`attribute ${attr} on <${name}>`);
      const value = decodeAttribute(raw!);
      if (value === null) findings.push(`undecodable reference in ${attr} on <${name}>`);
      else attributes.set(attr!, value);
    }
    const href = attributes.get("href");
    if (href !== undefined && !isSafeHref(href)) findings.push(`unsafe href ${JSON.stringify(href)}`);
    const src = attributes.get("src");
    if (src !== undefined && !isSafeSrc(src)) findings.push(`unsafe src ${JSON.stringify(src)}`);
    // Each candidate of a srcset is a URL like src: `url [descriptor]`, comma-separated.
    for (const candidate of (attributes.get("srcset") ?? "").split(",")) {
      const url = candidate.trim().split(/\s+/)[0];
      if (url && !isSafeSrc(url)) findings.push(`unsafe srcset candidate ${JSON.stringify(url)}`);
    }
    const target = attributes.get("target");
    if (target !== undefined && (target !== "_blank" || !/\bnoopener\b/.test(attributes.get("rel") ?? ""))) {
      findings.push(`target without rel=noopener on <${name}>`);
    }
    if (!VOID_TAGS.has(name)) open.push(name);
    i = lt + start[0].length;
  }
  if (open.length > 0) findings.push(`unclosed ${open.map((t) => `<${t}>`).join("")}`);
  return findings;
}
