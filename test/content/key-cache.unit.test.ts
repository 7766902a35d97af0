import { describe, expect, it } from "vitest";
import { KeyContextCache } from "../../src/content/keys/key-cache";
import type { KeyLookupRow } from "../../src/content/keys/store";

function row(id: string, siteId = "site-1"): KeyLookupRow {
  return {
    id,
    site_id: siteId,
    name: "key",
    kind: "public",
    key_prefix: "pk_x",
    scopes_json: '["posts:read"]',
    allowed_origins_json: '["https://a.test"]',
    server_reads: 0,
    created_by: "user",
    author_name: "Ana",
    created_at: "2026-01-01T00:00:00.000Z",
    site_status: "active",
    site_slug: "s",
    site_primary_domain: null,
    site_default_language: "en",
    suspended: 0,
    site_content_version: 3,
    site_org_id: "org-1",
    site_name: "S",
    site_updated_at: "2026-01-01T00:00:00.000Z",
    persona_slug: null,
    post_types_json: '[["post",1,1]]',
  };
}

describe("the isolate's key-context cache", () => {
  it("an entry is used for less than the TTL after it was read, never at or past it (nor before it)", () => {
    const cache = new KeyContextCache(30_000, 10);
    cache.set("h1", row("k1"), 1_000);
    expect(cache.get("h1", 1_000)?.id).toBe("k1");
    expect(cache.get("h1", 30_999)?.id).toBe("k1");
    expect(cache.get("h1", 31_000)).toBeNull();
    // An expired entry is gone, not revived by an earlier clock.
    expect(cache.get("h1", 1_000)).toBeNull();
    cache.set("h2", row("k2"), 50_000);
    expect(cache.get("h2", 49_999)).toBeNull();
  });

  it("holds at most its bound, dropping the least recently used first", () => {
    const cache = new KeyContextCache(30_000, 3);
    for (const n of [1, 2, 3]) cache.set(`h${n}`, row(`k${n}`), 0);
    expect(cache.get("h1", 1)?.id).toBe("k1");
    cache.set("h4", row("k4"), 2);
    expect(cache.size).toBe(3);
    expect(cache.get("h2", 3)).toBeNull();
    expect(cache.get("h1", 3)?.id).toBe("k1");
    expect(cache.get("h3", 3)?.id).toBe("k3");
    expect(cache.get("h4", 3)?.id).toBe("k4");
  });

  it("forgets one key (revocation) or every key of a site (a write, a projection push)", () => {
    const cache = new KeyContextCache(30_000, 10);
    cache.set("a1", row("ka1", "site-a"), 0);
    cache.set("a2", row("ka2", "site-a"), 0);
    cache.set("b1", row("kb1", "site-b"), 0);
    cache.forgetKey("ka1");
    expect(cache.get("a1", 1)).toBeNull();
    expect(cache.get("a2", 1)?.id).toBe("ka2");
    cache.forgetSite("site-a");
    expect(cache.get("a2", 1)).toBeNull();
    expect(cache.get("b1", 1)?.id).toBe("kb1");
  });
});
