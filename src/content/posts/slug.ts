/** Slugs of posts: format, derivation from a title, and the collision rule. */
import { parseId } from "../../lib/ids";

export const SLUG_MAX = 200;
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TYPE_SLUG_RE = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/**
 * A post slug: lowercase ASCII words joined by single hyphens. A slug that parses as a ULID or UUID is
 * refused, because `{reference}` would read it as an id.
 */
export function isValidSlug(value: string): boolean {
  return value.length <= SLUG_MAX && SLUG_RE.test(value) && parseId(value) === null;
}

export function isValidTypeSlug(value: string): boolean {
  return value.length <= 64 && TYPE_SLUG_RE.test(value);
}

/** Derives a slug from a title: accents folded, anything else non-alphanumeric becomes one hyphen. */
export function slugify(title: string): string {
  const base = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX - 8)
    .replace(/-+$/g, "");
  if (base === "" || parseId(base) !== null) return base === "" ? "post" : `${base}-post`;
  return base;
}

/**
 * Collision rule for derived slugs: the first free of `base`, `base-2`, … `base-{n}`. (An explicit slug
 * that is taken is a 409 SLUG_TAKEN instead: the client asked for exactly that slug.)
 */
export function slugCandidates(base: string, count: number, start = 1): string[] {
  const out: string[] = [];
  for (let n = start; n < start + count; n++) out.push(n === 1 ? base : `${base}-${n}`);
  return out;
}
