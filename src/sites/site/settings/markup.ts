/**
 * Settings that reach the page as markup or script, which only a caller holding the `code` permission
 * (src/lib/site-permissions.ts) may change: `code_injection` (head/body snippets), `about_html` (an HTML
 * fragment), `advanced` (free-form, unvalidated "advanced options" the renderer may output as is), and
 * every `html` key of a home builder block (`settings.home.blocks[].html`, the `html` block's markup and
 * any block carrying one). Not here: the SVG fields (`logo_svg`, `favicon_svg`, `logo.*.svg_markup`) are
 * sanitized on write (no script survives), `ads` and `modals` refuse markup, `custom_css`, `header` and
 * `footer` legacy keys are inert.
 *
 * Writes replace or merge whole documents, so the rule compares what the page would carry: a write by a
 * caller without `code` is refused when the markup of the document after it differs from the stored one
 * (a field added, changed or removed, by omission included); resending it unchanged passes. Moving a
 * non-html block around an html block, or changing its `variant`, is layout, not markup.
 */
import { isPlainObject } from "./json";

const MARKUP_KEYS = ["code_injection", "about_html", "advanced"] as const;
/** The fields, as errors name them. */
export const MARKUP_FIELDS = "code_injection, about_html, advanced, home.blocks[].html";

/** The markup a document puts on the page, in a comparable form. */
function markupOf(settings: Record<string, unknown>): string {
  const top = MARKUP_KEYS.map((k) => (Object.hasOwn(settings, k) ? settings[k] : null));
  const home = settings.home;
  const blocks = isPlainObject(home) && Array.isArray(home.blocks) ? home.blocks : [];
  const html = blocks
    .filter((b) => isPlainObject(b) && Object.hasOwn(b, "html"))
    .map((b) => (b as Record<string, unknown>).html);
  return canonicalJson([...top, html]);
}

/** JSON with object keys sorted, so that key order alone never counts as a change. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isPlainObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** Whether the page's markup differs between the two documents. */
export function changedMarkup(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  return markupOf(before) !== markupOf(after);
}

/** Whether a new document carries any markup at all (site creation). */
export function carriesMarkup(settings: Record<string, unknown>): boolean {
  return changedMarkup({}, settings);
}
