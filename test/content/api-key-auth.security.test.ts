import { describe, expect, it } from "vitest";
import { call, createKey, createPost, ORIGIN, problem, tenant } from "../support/content-helpers";

describe("public read keys (pk_): origin allowlist", () => {
  it("an allowlisted Origin is served, with CORS headers for that origin", async () => {
    const t = await tenant();
    const res = await call("GET", "/v1/posts", { key: t.pk, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("vary")).toContain("Origin");
  });

  it("another origin, a look-alike origin, or no Origin at all is 403 ORIGIN_NOT_ALLOWED", async () => {
    const t = await tenant();
    for (const origin of [
      "https://evil.test",
      `${ORIGIN}.evil.test`,
      "http://reader.example.test",
      undefined,
    ]) {
      const res = await call("GET", "/v1/posts", { key: t.pk, ...(origin ? { origin } : {}) });
      expect(res.status, String(origin)).toBe(403);
      expect((await problem(res)).code).toBe("ORIGIN_NOT_ALLOWED");
    }
  });

  it("a pk_ key is refused (403) on write operations even from its origin", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", status: "published" });
    for (const [method, path, body] of [
      ["POST", "/v1/posts", { title: "x" }],
      ["PATCH", `/v1/posts/${post.id}`, { title: "y" }],
      ["POST", `/v1/posts/${post.id}/unpublish`, undefined],
      ["GET", `/v1/posts/${post.id}/source`, undefined],
    ] as const) {
      const res = await call(method, path, { key: t.pk, origin: ORIGIN, body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });
});

describe("the key query parameter", () => {
  it("accepts a pk_ key for browser callers", async () => {
    const t = await tenant();
    const res = await call("GET", `/v1/posts?key=${t.pk}`, { origin: ORIGIN });
    expect(res.status).toBe(200);
  });

  it("a ck_ key in the query is 400 SECRET_KEY_IN_QUERY", async () => {
    const t = await tenant();
    const res = await call("GET", `/v1/posts?key=${t.ck}`);
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe("SECRET_KEY_IN_QUERY");
  });

  it("is ignored when an Authorization header exists", async () => {
    const t = await tenant();
    const withBadQuery = await call("GET", `/v1/posts?key=${t.ck}`, { key: t.ck });
    expect(withBadQuery.status).toBe(200);
    const withPk = await call("GET", `/v1/posts?key=${t.pk}`, {
      key: "ck_invalidinvalidinvalidinvalidinvalidinvalid",
    });
    expect(withPk.status).toBe(401);
  });

  it("an unknown key is 401 whether in the header or the query", async () => {
    expect((await call("GET", "/v1/posts?key=pk_nope", { origin: ORIGIN })).status).toBe(401);
    expect((await call("GET", "/v1/posts", { key: "pk_nope", origin: ORIGIN })).status).toBe(401);
    expect((await call("GET", "/v1/posts", { headers: { authorization: "Basic abc" } })).status).toBe(401);
    expect((await call("GET", "/v1/posts")).status).toBe(401);
  });
});

describe("scopes (route -> scope map)", () => {
  it("every route refuses a key without its scope with 403 INSUFFICIENT_SCOPE", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Scoped", status: "published" });
    const none = await createKey(t.site, { scopes: ["analytics:read"] });
    const routes: [string, string, unknown, string][] = [
      ["GET", "/v1/posts", undefined, "posts:read"],
      ["GET", "/v1/posts?status=draft", undefined, "posts:write"],
      ["POST", "/v1/posts", { title: "x" }, "posts:write"],
      ["GET", `/v1/posts/${post.id}`, undefined, "posts:read"],
      ["PATCH", `/v1/posts/${post.id}`, { title: "x" }, "posts:write"],
      ["POST", `/v1/posts/${post.id}/unpublish`, undefined, "posts:write"],
      ["GET", `/v1/posts/${post.id}/source`, undefined, "posts:write"],
      ["GET", `/v1/posts/${post.id}/seo`, undefined, "seo:read"],
      ["PATCH", `/v1/posts/${post.id}/seo`, { meta_title: "x" }, "seo:write"],
      ["GET", "/v1/post-types", undefined, "post_types:read"],
      ["GET", "/v1/media", undefined, "media:read"],
      ["GET", `/v1/media/${post.id}`, undefined, "media:read"],
      ["DELETE", `/v1/media/${post.id}`, undefined, "media:write"],
      ["POST", "/v1/media", undefined, "media:write"],
    ];
    for (const [method, path, body, scope] of routes) {
      const res = await call(method, path, { key: none.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      const p = (await res.json()) as { code: string; details: { required_scopes: string[] } };
      expect(p.code).toBe("INSUFFICIENT_SCOPE");
      expect(p.details.required_scopes).toEqual([scope]);
    }
    // GET /v1/site needs no scope: any valid key of the site.
    expect((await call("GET", "/v1/site", { key: none.key })).status).toBe(200);
  });

  it("a key with exactly the scope passes", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Scoped", status: "published" });
    const readOnly = await createKey(t.site, { scopes: ["posts:read"] });
    expect((await call("GET", `/v1/posts/${post.id}`, { key: readOnly.key })).status).toBe(200);
  });
});

describe("browser callers", () => {
  it("a CORS preflight is answered for any origin; the request itself enforces the allowlist", async () => {
    const res = await call("OPTIONS", "/v1/posts", {
      headers: { "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
      origin: ORIGIN,
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-allow-headers")).toContain("Authorization");
  });

  it("Vary lists Authorization and Origin once each on public answers to pk_ keys", async () => {
    const t = await tenant();
    const res = await call("GET", "/v1/posts", { key: t.pk, origin: ORIGIN });
    expect(res.headers.get("vary")).toBe("Authorization, Origin");
  });
});

describe("bodies", () => {
  it("PATCH with a non-JSON content type is a 415 problem, malformed JSON a 400 problem, never a 500", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "B" });
    const noType = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      headers: { "content-type": "text/plain" },
    });
    expect(noType.status).toBe(415);
    await problem(noType);
    const malformed = await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: "{oops" });
    expect(malformed.status).toBe(400);
    expect((await problem(malformed)).code).toBe("BAD_REQUEST");
  });
});
