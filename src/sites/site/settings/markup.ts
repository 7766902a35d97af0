/**
 * Settings that reach the page as markup or script, which only a caller holding the `code` permission
 * (src/lib/site-permissions.ts) may change. Derived from the declared schema (schema.ts), never listed
 * by hand: every value of kind `markup` (today `code_injection`, `about_html`, `advanced` and the `html`
 * of a home builder block), and inside a free-form value (`menu`, `cookies`, `social`, an applet's own
 * settings, a key stored before the schema, ...) every key named `html` or `*_html`, whatever its depth.
 * Not markup: the SVG fields (sanitized on write, no script survives); `ads` and `modals` refuse markup.
 *
 * Writes replace or merge whole documents, so the rule compares what the page would carry: a write by a
 * caller without `code` is refused when the markup of the document after it differs from the stored one
 * (a field added, changed or removed, by omission included); resending it unchanged passes. Moving a
 * non-html block around an html block, or changing its `variant`, is layout, not markup.
 */
import { markupOf } from "./declared";
import { MARKUP_PATHS } from "./schema";

/** The fields, as errors name them. */
export const MARKUP_FIELDS = `${MARKUP_PATHS.join(", ")}, and any html or *_html key in a free-form value`;

/** Whether the page's markup differs between the two documents. */
export function changedMarkup(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  return markupOf(before) !== markupOf(after);
}

/** Whether a new document carries any markup at all (site creation). */
export function carriesMarkup(settings: Record<string, unknown>): boolean {
  return changedMarkup({}, settings);
}
