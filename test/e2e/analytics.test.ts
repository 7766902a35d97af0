import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";

/**
 * Analytics across the platform, through the gateway only: the public site's beacon with its pk_ key,
 * the client IP the edge forwards, and the owner's numbers read back with a ck_ key.
 */
describe("analytics journey", () => {
  it("a page view beaconed through the edge is in the site's summary and on its post", async () => {
    const session = await verifiedUser();
    const org = await createOrg(session.access_token);
    const site = await createSite(session.access_token, org.id);
    const origin = "https://journey-reader.example";
    const keys = await Promise.all([
      call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
        token: session.access_token,
        body: { name: "owner", kind: "secret", scopes: ["posts:write", "analytics:read", "export"] },
      }),
      call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
        token: session.access_token,
        body: { name: "site", kind: "public", scopes: ["posts:read"], allowed_origins: [origin] },
      }),
    ]);
    const [ck, pk] = keys.map((k) => {
      expect(k.status).toBe(201);
      return k.body.key;
    }) as [string, string];
    const post = await call<{ id: string }>("POST", "/v1/posts", {
      token: ck,
      body: { title: "Hello analytics", status: "published" },
    });
    expect(post.status).toBe(201);

    const preflight = await exports.default.fetch(`${BASE}/v1/analytics/collect?key=${pk}`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");

    for (const ip of ["203.0.113.41", "203.0.113.42", "203.0.113.42"]) {
      const res = await exports.default.fetch(`${BASE}/v1/analytics/collect?key=${pk}`, {
        method: "POST",
        headers: {
          origin,
          "cf-connecting-ip": ip,
          "content-type": "text/plain;charset=UTF-8",
          "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        },
        body: JSON.stringify({ path: "/hello-analytics", referrer: "https://search.example/?q=x" }),
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }

    const summary = await call<{ totals: { views: number; visitors: number }; top_referrers: unknown[] }>(
      "GET",
      "/v1/analytics/summary?days=1",
      { token: ck },
    );
    expect(summary.status).toBe(200);
    expect(summary.body.totals).toMatchObject({ views: 3, visitors: 2 });
    expect(summary.body.top_referrers).toEqual([{ host: "search.example", views: 3 }]);
    const perPost = await call<{ items: { path: string; views: number; post: { id: string } | null }[] }>(
      "GET",
      "/v1/analytics/posts?days=1",
      { token: ck },
    );
    expect(perPost.body.items).toEqual([
      expect.objectContaining({
        path: "/hello-analytics",
        views: 3,
        post: expect.objectContaining({ id: post.body.id }),
      }),
    ]);
    const csv = await exports.default.fetch(`${BASE}/v1/export?resource=analytics&format=csv&days=1`, {
      headers: { authorization: `Bearer ${ck}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await csv.text()).toBe(
      `date,views,visitors,bot_views\r\n${new Date().toISOString().slice(0, 10)},3,2,0\r\n`,
    );
  });
});
