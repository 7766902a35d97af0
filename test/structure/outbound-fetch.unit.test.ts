import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSource, relative, root, sourceFiles } from "./source-files";

/**
 * The runtime's global `fetch` reaches the internet. A URL a user supplied (an image, a webhook
 * receiver, an OpenID issuer) is requested only through the outbound guard (src/lib/safe-fetch.ts);
 * the other modules that call `fetch` request URLs the operator configured, never a user's.
 */
const GUARD = "src/lib/safe-fetch.ts";
const OPERATOR_URLS: Record<string, string> = {
  "src/lib/doh.ts": "the DNS-over-HTTPS server (DOH_URL)",
  "src/identity/messaging/messaging.ts": "the e-mail/SMS provider's API",
  "src/identity/signup/breach.ts": "the breached-password range API",
  "src/identity/pages/browser/common.ts": "the platform's own API, from the user's browser",
  "src/content/core/effects/outbound.ts": "IndexNow and the CDN purge endpoint",
  "src/sites/core/page-cache.ts": "the page cache's purge endpoint (PAGE_PURGE_URL)",
};

/** Lines calling the global `fetch` (not a binding's `.fetch`, not a method named fetch). */
function globalFetchCalls(text: string): number[] {
  return text.split("\n").flatMap((line, i) => {
    if (/^\s*(override\s+)?fetch\(\w+: Request\)/.test(line)) return [];
    return /(^|[^.\w])fetch\(/.test(line) ? [i + 1] : [];
  });
}

describe("outbound requests in src/", () => {
  it("only the guard and the operator-configured adapters call the global fetch", () => {
    const callers = sourceFiles()
      .filter((file) => globalFetchCalls(readSource(file)).length > 0)
      .map(relative);
    expect(callers.filter((file) => file !== GUARD && !(file in OPERATOR_URLS))).toEqual([]);
  });

  it("the guard still makes its requests with the global fetch (the rule above guards something real)", () => {
    expect(globalFetchCalls(readSource(path.join(root, GUARD))).length).toBeGreaterThan(0);
  });
});
