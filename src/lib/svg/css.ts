/**
 * CSS checks for `<style>` elements, `style` attributes and presentation attributes (which browsers parse
 * with the CSS grammar, escapes included). CSS is never rewritten: a style that loads anything from
 * outside the document or can run code is refused whole, the caller removes it.
 */
import { DANGEROUS_URL, squash } from "./policy";

/** Resolves CSS escapes (`\75 rl(`, `@\69mport`) so filters see what the CSS parser will see. */
export function unescapeCss(css: string): string {
  return css.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(\r\n|[\n\r\f])|([\s\S]))/g, (_m, hex, nl, ch) => {
    if (hex !== undefined) {
      const cp = Number.parseInt(hex, 16);
      return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)
        ? "\ufffd"
        : String.fromCodePoint(cp);
    }
    if (nl !== undefined) return "";
    return ch ?? "";
  });
}

function stripComments(css: string): string {
  return css.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, "");
}

/**
 * Every `url(...)` must be a same-document fragment (`url(#grad)`). Functions that fetch without
 * `url(` (image-set, image, cross-fade, src, element) are refused outright.
 */
function urlsAreLocal(css: string): boolean {
  if (
    /(?:^|[^a-z0-9_-])(?:-webkit-)?(?:image-set|image|cross-fade|src|element|-moz-element)\s*\(/.test(css)
  ) {
    return false;
  }
  const fn = /url\s*\(/g;
  for (let m = fn.exec(css); m !== null; m = fn.exec(css)) {
    let i = m.index + m[0].length;
    while (i < css.length && /\s/.test(css.charAt(i))) i++;
    const quote = css.charAt(i);
    let arg: string;
    if (quote === '"' || quote === "'") {
      const close = css.indexOf(quote, i + 1);
      arg = css.slice(i + 1, close === -1 ? css.length : close);
    } else {
      const close = css.indexOf(")", i);
      arg = css.slice(i, close === -1 ? css.length : close);
    }
    if (!/^#[^\s"'()\\]+$/.test(arg.trim())) return false;
  }
  return true;
}

/** True when a CSS text (style sheet, declaration list or single value) loads nothing and runs nothing. */
export function isSafeCss(css: string): boolean {
  const text = stripComments(unescapeCss(stripComments(css))).toLowerCase();
  if (text.includes("@import")) return false;
  if (/\bbehavior\s*:/.test(text)) return false;
  const flat = squash(text);
  if (DANGEROUS_URL.test(flat)) return false;
  return urlsAreLocal(text);
}

/**
 * A `<style>` element's text: besides the CSS rules, no `<` at all, so nothing in it can close the
 * element or open markup when the SVG is inlined into HTML (`</style><img onerror=...>`).
 */
export function isSafeStyleSheet(css: string): boolean {
  return !css.includes("<") && isSafeCss(css);
}
