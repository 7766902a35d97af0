/** Hosts and language tags of a site (the slug rule is src/lib/slug.ts, shared with identity). */

import { SLUG_RE } from "../../lib/slug";

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const LANGUAGE_RE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
export const MAX_ALIASES = 20;

/**
 * Normalizes a host name (lower case, no trailing dot) or returns null when it is not a plain DNS host:
 * no scheme, port, path, user info, IP literal or single label.
 */
export function normalizeHost(value: string): string | null {
  const host = value.trim().toLowerCase().replace(/\.$/, "");
  if (host.length === 0 || host.length > 253) return null;
  const labels = host.split(".");
  if (labels.length < 2) return null;
  if (!labels.every((l) => LABEL_RE.test(l))) return null;
  // The top-level label is never all digits, which also refuses IPv4 literals.
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return host;
}

/** A host as a request may carry it (`Host`-style, with an optional port). */
export function normalizeRequestHost(value: string): string | null {
  const withoutPort = value.trim().replace(/:\d{1,5}$/, "");
  return normalizeHost(withoutPort);
}

/** The slug a platform host names (`<slug>.<platform domain>`), or null. */
export function slugOfPlatformHost(host: string, platformDomain: string): string | null {
  const suffix = `.${platformDomain.toLowerCase()}`;
  if (!host.endsWith(suffix)) return null;
  const label = host.slice(0, -suffix.length);
  return SLUG_RE.test(label) ? label : null;
}

/** True when a custom domain would shadow the platform's own host space. */
export function isPlatformHost(host: string, platformDomain: string): boolean {
  const domain = platformDomain.toLowerCase();
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The host a site is served on: its primary domain once PROVED (`proved`: the site's proved custom hosts,
 * docs/decisions/host-proof.md), else its platform host `<slug>.<platform domain>`.
 */
export function canonicalHost(
  site: { primary_domain: string | null; slug: string },
  platformDomain: string,
  proved: ReadonlySet<string>,
) {
  return site.primary_domain && proved.has(site.primary_domain)
    ? site.primary_domain
    : `${site.slug}.${platformDomain}`;
}
