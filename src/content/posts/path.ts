/**
 * Which post a path of the site names: the inverse of `postUrl` (core/effects/outbound.ts), which puts a post
 * of the site's default language at `/{slug}` and any other at `/{language}/{slug}`. Only those exact
 * paths map (the language segment in its canonical case, e.g. `/pt-BR/ola`); `/`, archives and any other
 * page map to no post.
 */
import { canonicalLanguage } from "./language";
import { isValidSlug } from "./slug";

export interface PostPathKey {
  slug: string;
  language: string;
}

export function postKeyOfPath(path: string, defaultLanguage: string): PostPathKey | null {
  const segments = path.split("/").slice(1);
  if (segments.length === 1) {
    const [slug] = segments as [string];
    return isValidSlug(slug) ? { slug, language: defaultLanguage } : null;
  }
  if (segments.length === 2) {
    const [language, slug] = segments as [string, string];
    if (canonicalLanguage(language) !== language || language === defaultLanguage) return null;
    return isValidSlug(slug) ? { slug, language } : null;
  }
  return null;
}
