/**
 * The SSRF guard of OpenID provider requests (src/identity/sso/outbound.ts): which issuer URLs are
 * refused before any request, and that `http://localhost` is accepted only with the development flag
 * `DEV_SSO_LOCAL_ISSUERS` (written only by `npm start`'s .dev.vars; a deploy refuses every DEV_ var).
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { checkProviderUrl, ProviderUrlRefused } from "../../src/identity/sso/outbound";

const production = {} as Env;
const development = { DEV_SSO_LOCAL_ISSUERS: "true" } as Env;

function reason(env: Env, url: string): string | null {
  try {
    checkProviderUrl(env, url);
    return null;
  } catch (err) {
    return err instanceof ProviderUrlRefused ? err.reason : String(err);
  }
}

describe("provider URLs", () => {
  it("accepts public HTTPS names and addresses", () => {
    expect(reason(production, "https://login.example.com")).toBeNull();
    expect(reason(production, "https://93.184.216.34/realm")).toBeNull();
  });

  it("refuses http, credentials, private names and private or special addresses", () => {
    expect(reason(production, "http://login.example.com")).toBe("https_required");
    expect(reason(production, "https://u:p@login.example.com")).toBe("credentials_in_url");
    for (const url of [
      "https://localhost",
      "https://intranet",
      "https://idp.internal",
      "https://printer.local",
      // Names only a split-horizon or Tor resolver answers: refused whatever public DNS says (content's
      // image fetcher always refused them; the provider guard did not).
      "https://idp.localdomain",
      "https://idp.hidden.onion",
      "https://127.0.0.1",
      "https://10.1.2.3",
      "https://169.254.169.254",
      "https://[::1]",
      "https://[fd00::1]",
      "https://0x7f.1",
      "https://2130706433",
    ]) {
      expect(reason(production, url), url).toBe("non_public_host");
    }
    expect(reason(production, "not a url")).toBe("invalid_url");
  });

  it("http://localhost is a development-only issuer", () => {
    expect(reason(production, "http://localhost:8791")).toBe("https_required");
    expect(reason(production, "http://127.0.0.1:8791")).toBe("https_required");
    expect(reason(development, "http://localhost:8791")).toBeNull();
    expect(checkProviderUrl(development, "http://localhost:8791").local).toBe(true);
    // The flag opens localhost only, never another private address.
    expect(reason(development, "http://10.0.0.5")).toBe("https_required");
    expect(reason(development, "https://10.0.0.5")).toBe("non_public_host");
  });
});
