/**
 * Where a page goes once the visitor is signed in: the `next` parameter when it is a path on this same
 * origin, else the account page. Stops an open redirect (`?next=https://evil.example`, `//evil.example`,
 * `/\evil.example`, or a tab or newline that browsers strip out of `/\t/evil.example`) turning our sign-in
 * page into a phishing hop that lands the victim, signed in and trusting, on another site.
 *
 * The check runs on the normalised URL, and what is emitted is that normalised path: a raw value is
 * accepted only when `new URL(next, origin)` stays on the origin, and the path it normalises to
 * (pathname, search, hash) resolves to itself on the origin again. The second resolution refuses dot
 * segments that collapse into a protocol-relative path (`/..//evil.example`, `/.//`, `/%2e%2e//`,
 * `/a/..//`), which the first accepts because the raw value still resolves on the origin. The page scripts
 * repeat the same check in the browser (browser/shared/flow.ts `nextPath`).
 */
export const DEFAULT_NEXT = "/auth/account";

const BASE = "http://same-origin.invalid";

function sameOriginPath(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return null;
  }
  return url.origin === BASE ? `${url.pathname}${url.search}${url.hash}` : null;
}

export function safeNextPath(raw: string | undefined | null): string {
  if (!raw || raw.length > 2048) return DEFAULT_NEXT;
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\")) return DEFAULT_NEXT;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return DEFAULT_NEXT;
  }
  const path = sameOriginPath(raw);
  if (!path || sameOriginPath(path) !== path) return DEFAULT_NEXT;
  return path;
}

/** `path` with `next` carried along when it is not the default, so a detour (sign-up, reset) keeps it. */
export function withNext(path: string, next: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (next !== DEFAULT_NEXT) query.set("next", next);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
