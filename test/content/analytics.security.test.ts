import { describe, expect, it } from "vitest";
import {
  analyticsTenant,
  BROWSER_UA,
  beacon,
  daysAgo,
  freshIp,
  OTHER_BROWSER_UA,
  seedDay,
  view,
} from "../support/analytics-helpers";
import { contentDbOf } from "../support/content-groups";
import { call, createKey, inOneWindow, ORIGIN, ownerHeaders, problem } from "../support/content-helpers";

async function totals(ck: string, query = "") {
  const res = await call("GET", `/v1/analytics/summary${query}`, { key: ck });
  expect(res.status).toBe(200);
  return ((await res.json()) as { totals: { views: number; visitors: number; bot_views: number } }).totals;
}

const ANALYTICS_TABLES = [
  "analytics_visitors",
  "analytics_daily",
  "analytics_paths_daily",
  "analytics_referrers_daily",
] as const;

async function storedText(siteId: string): Promise<string> {
  const rows = [];
  for (const table of ANALYTICS_TABLES) {
    const { results } = await (await contentDbOf(siteId))
      .prepare(`SELECT * FROM ${table} WHERE site_id = ?`)
      .bind(siteId)
      .all();
    rows.push(...results);
  }
  const salts = await (await contentDbOf(siteId)).prepare("SELECT * FROM analytics_salts").all();
  return JSON.stringify([...rows, ...salts.results]);
}

describe("the visitor id is not personal data", () => {
  it("no IP and no user agent is stored, in any analytics table", async () => {
    const t = await analyticsTenant();
    const ip = "192.0.2.77";
    const userAgent = `${BROWSER_UA} UniqueMarker/9.9`;
    await view(t.pk, "/private", { ip, userAgent, referrer: "https://news.example/article" });
    await view(t.pk, "/private", { ip: "2001:db8::7", userAgent });
    const text = await storedText(t.site.id);
    for (const fragment of ["192.0.2.77", "192.0.2", "2001:db8", "UniqueMarker", "Macintosh", "Safari"]) {
      expect(text, fragment).not.toContain(fragment);
    }
    const visitors = await (await contentDbOf(t.site.id))
      .prepare("SELECT visitor_id FROM analytics_visitors WHERE site_id = ?")
      .bind(t.site.id)
      .all<{ visitor_id: string }>();
    expect(visitors.results).toHaveLength(2);
    for (const { visitor_id } of visitors.results) expect(visitor_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("the same person on two sites has two unrelated ids (the site is in the hash)", async () => {
    const a = await analyticsTenant();
    const b = await analyticsTenant();
    const ip = freshIp();
    await view(a.pk, "/", { ip, userAgent: OTHER_BROWSER_UA });
    await view(b.pk, "/", { ip, userAgent: OTHER_BROWSER_UA });
    // Each site's visitors live in its own group (the two may differ).
    const ids = { results: [] as { site_id: string; visitor_id: string }[] };
    for (const siteId of [a.site.id, b.site.id]) {
      const { results } = await (await contentDbOf(siteId))
        .prepare("SELECT site_id, visitor_id FROM analytics_visitors WHERE site_id = ?")
        .bind(siteId)
        .all<{ site_id: string; visitor_id: string }>();
      ids.results.push(...results);
    }
    expect(ids.results).toHaveLength(2);
    expect(ids.results[0]!.visitor_id).not.toBe(ids.results[1]!.visitor_id);
  });
});

describe("collection takes the site's public key from an allowed origin", () => {
  it("refuses a missing, unknown or revoked key (401), a ck_ key (400 in the query, 403 in Authorization), another origin (403); counts nothing", async () => {
    const t = await analyticsTenant();
    const revoked = await createKey(t.site, { kind: "public", scopes: ["posts:read"] });
    const del = await call("DELETE", `/api/v1/sites/${t.site.id}/api-keys/${revoked.id}`, {
      headers: ownerHeaders(t.site),
    });
    expect(del.status).toBe(204);
    const cases: [string, Promise<Response>, number, string][] = [
      ["no key", beacon("", "/"), 401, "UNAUTHENTICATED"],
      ["unknown key", beacon("pk_unknownunknownunknownunknownunknownunknown", "/"), 401, "UNAUTHENTICATED"],
      ["revoked key", beacon(revoked.key, "/"), 401, "UNAUTHENTICATED"],
      ["ck_ in the query", beacon(t.ck, "/"), 400, "SECRET_KEY_IN_QUERY"],
      ["ck_ in Authorization", beacon(t.ck, "/", { keyInHeader: true }), 403, "PUBLIC_KEY_REQUIRED"],
      ["another origin", beacon(t.pk, "/", { origin: "https://evil.example" }), 403, "ORIGIN_NOT_ALLOWED"],
      ["no origin", beacon(t.pk, "/", { origin: null }), 403, "ORIGIN_NOT_ALLOWED"],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      expect(res.status, name).toBe(status);
      expect((await problem(res)).code, name).toBe(code);
    }
    expect(await totals(t.ck)).toEqual({ views: 0, visitors: 0, bot_views: 0 });
  });

  it("a CORS preflight of the collection path allows POST with Content-Type", async () => {
    const res = await call("OPTIONS", "/v1/analytics/collect", {
      origin: ORIGIN,
      headers: { "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("Content-Type");
  });
});

describe("collection is rate-limited per (site, client IP)", () => {
  it("60 views a minute from one client count; the 61st is 429 with Retry-After and counts nothing; other clients and sites go on", async () => {
    // The collect limit is a rate-limiting binding of fixed 60 s windows: the 60 views and the 61st are sent
    // inside one window (a run that straddles a boundary is run again with a fresh tenant and client).
    const { t, ip, over, bot } = await inOneWindow(async () => {
      const t = await analyticsTenant();
      const ip = freshIp();
      for (let i = 0; i < 60; i++) await view(t.pk, `/p${i % 3}`, { ip });
      const over = await beacon(t.pk, "/p0", { ip });
      const bot = await beacon(t.pk, "/p0", { ip, userAgent: "curl/8.7.1" });
      return { t, ip, over, bot };
    });
    const other = await analyticsTenant();
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("60");
    expect((await problem(over)).code).toBe("RATE_LIMITED");
    expect(bot.status, "bots spend the same bucket").toBe(429);
    expect(await totals(t.ck)).toEqual({ views: 60, visitors: 1, bot_views: 0 });
    await view(t.pk, "/p0", { ip: freshIp() });
    await view(other.pk, "/p0", { ip });
    expect((await totals(t.ck)).views).toBe(61);
    expect((await totals(other.ck)).views).toBe(1);
  });

  it("a second public key of the site shares the client's bucket", async () => {
    // Inside one fixed window of the collect limiter, as above: straddling a boundary would refill the bucket.
    const over = await inOneWindow(async () => {
      const t = await analyticsTenant();
      const second = await createKey(t.site, { kind: "public", scopes: ["posts:read"] });
      const ip = freshIp();
      for (let i = 0; i < 60; i++) await view(t.pk, "/", { ip });
      return beacon(second.key, "/", { ip });
    });
    expect(over.status).toBe(429);
  });
});

describe("scope analytics:read guards the analytics reads", () => {
  it("summary, posts and the analytics export without analytics:read are 403 INSUFFICIENT_SCOPE", async () => {
    const t = await analyticsTenant();
    const without = await createKey(t.site, {
      scopes: ["posts:read", "posts:write", "export", "site:read", "leads:read"],
    });
    for (const [path, required] of [
      ["/v1/analytics/summary", ["analytics:read"]],
      ["/v1/analytics/posts", ["analytics:read"]],
      ["/v1/export?resource=analytics", ["export", "analytics:read"]],
    ] as const) {
      const res = await call("GET", path, { key: without.key });
      expect(res.status, path).toBe(403);
      const p = (await res.json()) as {
        code: string;
        details: { required_scopes: string[]; missing_scopes: string[] };
      };
      expect(p.code).toBe("INSUFFICIENT_SCOPE");
      expect(p.details.required_scopes).toEqual(required);
      expect(p.details.missing_scopes).toEqual(["analytics:read"]);
    }
  });

  it("the analytics export also needs export", async () => {
    const t = await analyticsTenant();
    const reader = await createKey(t.site, { scopes: ["analytics:read"] });
    const res = await call("GET", "/v1/export?resource=analytics", { key: reader.key });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { details: { missing_scopes: string[] } }).details.missing_scopes).toEqual([
      "export",
    ]);
  });

  it("a pk_ key is 403 on every analytics read, even from its origin (it cannot carry analytics:read)", async () => {
    const t = await analyticsTenant();
    for (const path of ["/v1/analytics/summary", "/v1/analytics/posts", "/v1/export?resource=analytics"]) {
      const res = await call("GET", path, { key: t.pk, origin: ORIGIN });
      expect(res.status, path).toBe(403);
      expect((await problem(res)).code).toBe("SECRET_KEY_REQUIRED");
    }
    const refused = await call("POST", `/api/v1/sites/${t.site.id}/api-keys`, {
      headers: ownerHeaders(t.site),
      body: { name: "x", kind: "public", scopes: ["analytics:read"], allowed_origins: [ORIGIN] },
    });
    expect(refused.status).toBe(400);
  });
});

describe("tenant wall: another site's views never appear", () => {
  it("site B's collected and stored views are in none of site A's summary, posts or export", async () => {
    const a = await analyticsTenant();
    const b = await analyticsTenant();
    const ip = freshIp();
    await view(a.pk, "/shared", { ip });
    await view(b.pk, "/shared", { ip });
    await view(b.pk, "/only-b", { ip, referrer: "https://b-referrer.example/" });
    const past = daysAgo(10);
    await seedDay(b.site.id, past, { views: 50, visitors: 20, bot_views: 5, paths: { "/b-past": [50, 20] } });
    // A's key against B's pages: the body cannot name another site (a site_id is refused, issue 33:
    // nothing sent is dropped silently), and A's key counts on A only.
    const naming = await beacon(a.pk, "/from-a", {
      ip: freshIp(),
      body: JSON.stringify({ path: "/from-a", site_id: b.site.id }),
    });
    expect(naming.status).toBe(400);
    expect(await naming.json()).toMatchObject({ code: "BAD_REQUEST", details: { path: "site_id" } });
    await view(a.pk, "/from-a", { ip: freshIp() });

    const summaryA = (await (await call("GET", "/v1/analytics/summary?days=365", { key: a.ck })).json()) as {
      totals: { views: number };
      top_paths: { path: string }[];
      top_referrers: unknown[];
    };
    expect(summaryA.totals.views).toBe(2);
    expect(summaryA.top_paths.map((p) => p.path).sort()).toEqual(["/from-a", "/shared"]);
    expect(summaryA.top_referrers).toEqual([]);
    const pastA = (await (
      await call("GET", `/v1/analytics/summary?from=${past}&to=${past}`, { key: a.ck })
    ).json()) as { totals: { views: number; bot_views: number } };
    expect(pastA.totals).toMatchObject({ views: 0, bot_views: 0 });
    const postsA = (await (await call("GET", "/v1/analytics/posts?days=365", { key: a.ck })).json()) as {
      items: { path: string }[];
      total: number;
    };
    expect(postsA.total).toBe(2);
    const exportA = await (
      await call("GET", `/v1/export?resource=analytics&group=path&from=${past}&to=${past}`, { key: a.ck })
    ).text();
    expect(exportA).toBe("");
    expect((await totals(b.ck, "?days=365")).views).toBe(52);
  });
});
