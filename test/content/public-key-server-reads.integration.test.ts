/**
 * Server reads of a public key (issue 35): with `server_reads: true` a `pk_` read sent without an `Origin`
 * (server-side rendering, a static build) is served, never when a `Sec-Fetch-*` header shows a browser,
 * on a per-key bucket of its own; answers say `Vary` on what chose them.
 */
import { describe, expect, it } from "vitest";
import {
  call,
  createPost,
  inOneWindow,
  makeSite,
  ORIGIN,
  ownerHeaders,
  problem,
  tenant,
} from "../support/content-helpers";

const SERVER_VARY = ["origin", "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest"];

function varyOf(res: Response): string[] {
  return (res.headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase());
}

/** A site with a secret key, a published post, and a public key with `server_reads` as given. */
async function ssrTenant(serverReads: boolean, scopes = ["posts:read", "seo:read", "post_types:read"]) {
  const t = await tenant();
  const post = await createPost(t.ck, { title: "Hello SSR", status: "published" });
  const res = await call("POST", `/api/v1/sites/${t.site.id}/api-keys`, {
    headers: ownerHeaders(t.site),
    body: { name: "ssr", kind: "public", scopes, allowed_origins: [ORIGIN], server_reads: serverReads },
  });
  expect(res.status).toBe(201);
  const key = (await res.json()) as { id: string; key: string; server_reads: boolean };
  expect(key.server_reads).toBe(serverReads);
  return { ...t, post, ssr: key };
}

let ipCounter = 0;
const freshIp = () => `198.51.100.${(ipCounter++ % 250) + 1}`;

describe("a public key without server_reads (the default)", () => {
  it("refuses a read without Origin: 403 ORIGIN_NOT_ALLOWED, Vary: Origin", async () => {
    const t = await ssrTenant(false);
    const res = await call("GET", "/v1/posts", { key: t.ssr.key });
    expect(res.status).toBe(403);
    expect((await problem(res)).code).toBe("ORIGIN_NOT_ALLOWED");
    expect(varyOf(res)).toContain("origin");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("a public key with server_reads", () => {
  it("serves a server's read without Origin (list, post, its SEO, site, post types): no CORS grant, Vary on Origin and Sec-Fetch-*", async () => {
    const t = await ssrTenant(true);
    for (const path of [
      "/v1/posts",
      `/v1/posts/${t.post.slug}`,
      `/v1/posts/${t.post.id}/seo`,
      "/v1/site",
      "/v1/post-types",
    ]) {
      const res = await call("GET", path, { key: t.ssr.key, ip: freshIp() });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      for (const name of SERVER_VARY) expect(varyOf(res), path).toContain(name);
      expect(res.headers.get("ratelimit-policy"), path).toBe('"server-reads";q=600;w=60');
    }
    // The query form too (`?key=`), as a static build's fetch might send it.
    const byQuery = await call("GET", `/v1/posts?key=${t.ssr.key}`, { ip: freshIp() });
    expect(byQuery.status).toBe(200);
    // The list holds the post the server renders.
    const list = (await (await call("GET", "/v1/posts", { key: t.ssr.key })).json()) as {
      items: { id: string }[];
    };
    expect(list.items.map((p) => p.id)).toContain(t.post.id);
  });

  it("never serves a browser: Sec-Fetch-Site or Sec-Fetch-Dest (any value), or a browser-only Sec-Fetch-Mode, without Origin is 403 with the same Vary", async () => {
    const t = await ssrTenant(true);
    const browsers: Record<string, string>[] = [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { "sec-fetch-site": "" },
      { "sec-fetch-dest": "empty" },
      { "sec-fetch-dest": "script" },
      { "sec-fetch-mode": "no-cors" },
      { "sec-fetch-mode": "navigate" },
      { "sec-fetch-mode": "same-origin" },
      { "sec-fetch-mode": "" },
      // As a browser sends them: all three together, a cors fetch or a script tag.
      { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
      { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "script" },
      { "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
    ];
    for (const headers of browsers) {
      const name = JSON.stringify(headers);
      const res = await call("GET", "/v1/posts", { key: t.ssr.key, headers });
      expect(res.status, name).toBe(403);
      const body = (await problem(res)) as { code: string; detail?: string };
      expect(body.code, name).toBe("ORIGIN_NOT_ALLOWED");
      expect(body.detail, name).toContain("Sec-Fetch");
      for (const v of SERVER_VARY) expect(varyOf(res), name).toContain(v);
    }
  });

  it("Node's fetch (undici adds `Sec-Fetch-Mode: cors` alone to every request) is a server: served", async () => {
    const t = await ssrTenant(true);
    for (const mode of ["cors", "CORS", " cors "]) {
      const res = await call("GET", `/v1/posts/${t.post.id}/seo`, {
        key: t.ssr.key,
        headers: { "sec-fetch-mode": mode, "user-agent": "node", accept: "*/*" },
      });
      expect(res.status, mode).toBe(200);
      for (const v of SERVER_VARY) expect(varyOf(res), mode).toContain(v);
    }
  });

  it("a browser read keeps the origin rule: allowed origin served with CORS (the browser buckets), another refused", async () => {
    const t = await ssrTenant(true);
    const allowed = await call("GET", "/v1/posts", {
      key: t.ssr.key,
      origin: ORIGIN,
      headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(allowed.headers.get("ratelimit-policy")).toBe(
      '"reads";q=600;w=60, "public-reads-per-ip";q=60;w=60',
    );
    for (const name of SERVER_VARY) expect(varyOf(allowed)).toContain(name);
    const other = await call("GET", "/v1/posts", { key: t.ssr.key, origin: "https://evil.example" });
    expect(other.status).toBe(403);
    expect((await problem(other)).code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("is for reads only: page-view collection without Origin stays refused", async () => {
    const t = await ssrTenant(true);
    const res = await call("POST", "/v1/analytics/collect", { key: t.ssr.key, body: { path: "/" } });
    expect(res.status).toBe(403);
    expect((await problem(res)).code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("scopes still apply to server reads", async () => {
    const t = await ssrTenant(true, ["posts:read"]);
    const res = await call("GET", "/v1/post-types", { key: t.ssr.key });
    expect(res.status).toBe(403);
    expect((await problem(res)).code).toBe("INSUFFICIENT_SCOPE");
  });

  it("a secret key cannot ask for it (400), and a secret key's reads are unchanged by Sec-Fetch-*", async () => {
    const site = await makeSite();
    const res = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
      headers: ownerHeaders(site),
      body: { name: "x", kind: "secret", scopes: ["posts:read"], server_reads: true },
    });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe("BAD_REQUEST");
    const t = await tenant();
    const read = await call("GET", "/v1/posts", { key: t.ck, headers: { "sec-fetch-site": "none" } });
    expect(read.status).toBe(200);
  });

  it("enabling it by PATCH is a widening: recorded like a creation", async () => {
    const t = await ssrTenant(false);
    const res = await call("PATCH", `/api/v1/sites/${t.site.id}/api-keys/${t.ssr.id}`, {
      headers: ownerHeaders(t.site, "enabler"),
      body: { server_reads: true },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      server_reads: true,
      last_widened: { by: "enabler", added: { scopes: [], allowed_origins: [], server_reads: true } },
    });
    expect((await call("GET", "/v1/posts", { key: t.ssr.key })).status).toBe(200);
  });
});

describe("server reads count on a bucket of their own", () => {
  it("not the per-(key, client IP) bucket: 70 server reads from one address pass, and that address's browser reads keep their 60", async () => {
    const { t, statuses, browser } = await inOneWindow(async () => {
      const t = await ssrTenant(true);
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, () => call("GET", "/v1/site", { key: t.ssr.key, ip })),
        );
        for (const r of batch) {
          statuses.push(r.status);
          await r.arrayBuffer();
        }
      }
      const browser = await call("GET", "/v1/site", { key: t.ssr.key, ip, origin: ORIGIN });
      return { t, statuses, browser };
    });
    expect(statuses.filter((s) => s === 200)).toHaveLength(70);
    expect(browser.status).toBe(200);
    expect(t.ssr.key).toMatch(/^pk_/);
  });

  it("600 a minute per key, then 429 on server reads only: the key's browser reads go on", {
    timeout: 180_000,
  }, async () => {
    const { passed, limited, browser } = await inOneWindow(async () => {
      const t = await ssrTenant(true);
      let passed = 0;
      let limited: Response | null = null;
      while (!limited && passed < 2000) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () => call("GET", "/v1/site", { key: t.ssr.key, ip: freshIp() })),
        );
        for (const r of batch) {
          if (r.status === 429 && !limited) limited = r;
          else if (r.status === 200) passed++;
          if (r !== limited) await r.arrayBuffer();
        }
      }
      const browser = await call("GET", "/v1/site", { key: t.ssr.key, origin: ORIGIN, ip: freshIp() });
      return { passed, limited: limited!, browser };
    });
    expect(passed).toBe(600);
    expect(limited.status).toBe(429);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("ratelimit")).toBe('"server-reads";r=0;t=60');
    expect(limited.headers.get("ratelimit-policy")).toBe('"server-reads";q=600;w=60');
    expect(browser.status).toBe(200);
  });
});
