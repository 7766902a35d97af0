/**
 * The origins a public (`pk_`) key may be used from (`allowed_origins`): exact origins (`https://example.com`,
 * `http://localhost:5173`) and, over https only, one leading wildcard label (`https://*.my-project.pages.dev`:
 * a preview deployment's host). A wildcard matches exactly one label (`abc.my-project.pages.dev`), never the
 * bare name (`my-project.pages.dev`) nor a deeper one (`a.b.my-project.pages.dev`), and never sits directly
 * under a public suffix (`*.pages.dev`, `*.com`, `*.co.uk`: every stranger's site), judged with the public
 * suffix list of `tldts`, its private section included (docs/decisions/key-editing.md).
 */
import { getDomain, parse } from "tldts";

const WILDCARD_PREFIX = "https://*.";

/** An exact origin: scheme, host and optional port, nothing else (no path, query, fragment or wildcard). */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  // No wildcards or other odd host characters: an exact entry compares exact origins.
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return null;
  if (url.origin !== value.replace(/\/$/, "")) return null;
  return url.origin;
}

/** Why an entry is refused: not an origin at all, or a wildcard over a public suffix. */
export type OriginRefusal = "invalid" | "public_suffix";

/**
 * An entry of `allowed_origins` in its stored form, or why it is refused. A wildcard is `https://*.` and an
 * exact https origin below it whose host has a registrable domain (so the wildcard's parent is never a public
 * suffix, nor an IP address); `*` alone, `http://*.…`, a wildcard elsewhere than the first label or two of
 * them are invalid.
 */
export function normalizeAllowedOrigin(value: string): { origin: string } | { refused: OriginRefusal } {
  if (!value.startsWith(WILDCARD_PREFIX)) {
    const origin = normalizeOrigin(value);
    return origin === null ? { refused: "invalid" } : { origin };
  }
  const below = normalizeOrigin(`https://${value.slice(WILDCARD_PREFIX.length)}`);
  if (below === null) return { refused: "invalid" };
  const host = new URL(below).hostname;
  if (parse(host).isIp || host.startsWith("[")) return { refused: "invalid" };
  if (getDomain(host, { allowPrivateDomains: true }) === null) return { refused: "public_suffix" };
  return { origin: `${WILDCARD_PREFIX}${below.slice("https://".length)}` };
}

/**
 * Whether `origin` (the request's `Origin` header) is one of `allowed` (stored entries): equal to an exact
 * entry, or https with exactly one more label than a wildcard entry's parent, on the same port.
 */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  if (allowed.includes(origin)) return true;
  if (!origin.startsWith("https://")) return false;
  for (const entry of allowed) {
    if (!entry.startsWith(WILDCARD_PREFIX)) continue;
    // Both sides are serialized origins (the browser's and our normalized one): host and port compare as text.
    const parent = entry.slice(WILDCARD_PREFIX.length);
    const rest = origin.slice("https://".length);
    if (!rest.endsWith(`.${parent}`)) continue;
    const label = rest.slice(0, rest.length - parent.length - 1);
    if (/^[a-z0-9-]+$/.test(label)) return true;
  }
  return false;
}
