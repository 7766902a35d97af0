/**
 * The slug of a name, shared by the services that derive one (a site, an organization): one DNS label,
 * because `<slug>.<platform domain>` is a host of a site and an organization's slug follows the same rule.
 */

/** A slug is one DNS label: lower-case letters, digits and inner hyphens, 1 to 63. */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Derives a slug from a display name: ASCII-folded, lower case, runs of other characters as one hyphen. */
export function slugFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/g, "");
}
