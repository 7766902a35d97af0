/**
 * Character-reference decoding for the inline HTML tokenizer. The sanitizer decodes every reference it
 * knows and re-escapes on output, so the browser sees exactly the string that was checked (an entity
 * trick like `java&#x73;cript&colon;` is judged after decoding, never before).
 */

/** Names of U+00A0..U+00FF in code-point order; these are also the references a browser accepts without `;`. */
// biome-ignore format: one table
const LATIN1_NAMES = [
  "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo", "not",
  "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot", "cedil", "sup1",
  "ordm", "raquo", "frac14", "frac12", "frac34", "iquest", "Agrave", "Aacute", "Acirc", "Atilde", "Auml",
  "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH",
  "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
  "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
  "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde", "ograve", "oacute",
  "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
];

/** References decoded even without a trailing `;` (the HTML standard's legacy set). */
const LEGACY: Record<string, string> = {
  amp: "&",
  AMP: "&",
  lt: "<",
  LT: "<",
  gt: ">",
  GT: ">",
  quot: '"',
  QUOT: '"',
  COPY: "\u00a9",
  REG: "\u00ae",
};
LATIN1_NAMES.forEach((name, i) => {
  LEGACY[name] = String.fromCodePoint(0xa0 + i);
});

/**
 * References decoded only with `;`: punctuation (the usual obfuscation of `javascript&colon;`), typography,
 * a few symbols. An unknown reference stays literal text, which is safe because it is escaped on output.
 */
// biome-ignore format: one table
const NAMED: Record<string, string> = {
  ...LEGACY,
  apos: "'", colon: ":", Tab: "\t", NewLine: "\n", excl: "!", num: "#", dollar: "$", percnt: "%", lpar: "(",
  rpar: ")", ast: "*", midast: "*", plus: "+", comma: ",", period: ".", sol: "/", semi: ";", equals: "=",
  quest: "?", commat: "@", lsqb: "[", lbrack: "[", bsol: "\\", rsqb: "]", rbrack: "]", Hat: "^", lowbar: "_",
  UnderBar: "_", grave: "`", DiacriticalGrave: "`", lcub: "{", lbrace: "{", verbar: "|", vert: "|",
  VerticalLine: "|", rcub: "}", rbrace: "}", hyphen: "\u2010", dash: "\u2010", ndash: "\u2013", mdash: "\u2014",
  lsquo: "\u2018", rsquo: "\u2019", sbquo: "\u201a", ldquo: "\u201c", rdquo: "\u201d", bdquo: "\u201e",
  dagger: "\u2020", Dagger: "\u2021", bull: "\u2022", hellip: "\u2026", permil: "\u2030", prime: "\u2032",
  Prime: "\u2033", lsaquo: "\u2039", rsaquo: "\u203a", euro: "\u20ac", trade: "\u2122", larr: "\u2190",
  uarr: "\u2191", rarr: "\u2192", darr: "\u2193", harr: "\u2194", minus: "\u2212", le: "\u2264", ge: "\u2265",
  ne: "\u2260", infin: "\u221e", asymp: "\u2248", thinsp: "\u2009", ensp: "\u2002", emsp: "\u2003",
  zwnj: "\u200c", zwj: "\u200d", lrm: "\u200e", rlm: "\u200f", OElig: "\u0152", oelig: "\u0153",
  Scaron: "\u0160", scaron: "\u0161", Yuml: "\u0178", fnof: "\u0192", circ: "\u02c6", tilde: "\u02dc",
  alpha: "\u03b1", beta: "\u03b2", gamma: "\u03b3", delta: "\u03b4", pi: "\u03c0", sigma: "\u03c3",
  mu: "\u03bc", Omega: "\u03a9", hearts: "\u2665", check: "\u2713",
};

/** The C1 range of numeric references maps to windows-1252, as browsers do. */
// biome-ignore format: one table
const WINDOWS_1252: Record<number, number> = {
  128: 0x20ac, 130: 0x201a, 131: 0x0192, 132: 0x201e, 133: 0x2026, 134: 0x2020, 135: 0x2021,
  136: 0x02c6, 137: 0x2030, 138: 0x0160, 139: 0x2039, 140: 0x0152, 142: 0x017d, 145: 0x2018,
  146: 0x2019, 147: 0x201c, 148: 0x201d, 149: 0x2022, 150: 0x2013, 151: 0x2014, 152: 0x02dc,
  153: 0x2122, 154: 0x0161, 155: 0x203a, 156: 0x0153, 158: 0x017e, 159: 0x0178,
};

function decodeNumeric(digits: string, hex: boolean): string {
  // Overlong digit runs (`&#0000000000106;`) are still one reference; cap the value instead of the length.
  const significant = digits.replace(/^0+/, "");
  let cp = significant.length > 8 ? 0x110000 : Number.parseInt(significant || "0", hex ? 16 : 10);
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  cp = WINDOWS_1252[cp] ?? cp;
  return String.fromCodePoint(cp);
}

const REFERENCE = /&(?:#([xX])([0-9a-fA-F]+);?|#([0-9]+);?|([a-zA-Z][a-zA-Z0-9]*)(;?))/g;

/**
 * Decodes character references like a browser does in text (`inAttribute` false) or in an attribute value
 * (`inAttribute` true: a legacy reference without `;` followed by an alphanumeric or `=` stays literal).
 */
export function decodeEntities(input: string, inAttribute: boolean): string {
  if (!input.includes("&")) return input;
  return input.replace(
    REFERENCE,
    (
      match,
      hexMark: string | undefined,
      hexDigits: string | undefined,
      decDigits: string | undefined,
      name: string | undefined,
      semicolon: string | undefined,
      offset: number,
    ) => {
      if (hexMark !== undefined && hexDigits !== undefined) return decodeNumeric(hexDigits, true);
      if (decDigits !== undefined) return decodeNumeric(decDigits, false);
      if (name === undefined) return match;
      if (semicolon === ";" && Object.hasOwn(NAMED, name)) return NAMED[name]!;
      // Longest legacy prefix, e.g. `&notit;` is `¬it;` and `&ampfoo` is `&foo`.
      for (let len = Math.min(name.length, 6); len >= 2; len--) {
        const prefix = name.slice(0, len);
        if (!Object.hasOwn(LEGACY, prefix)) continue;
        const rest = name.slice(len) + (semicolon ?? "");
        if (inAttribute) {
          const next = rest.length > 0 ? rest[0]! : (input[offset + match.length] ?? "");
          if (/[a-zA-Z0-9=]/.test(next)) return match;
        }
        return LEGACY[prefix]! + rest;
      }
      return match;
    },
  );
}
