import { describe, expect, it } from "vitest";
import { JwksCache, readiness } from "../../src/content/probes/routes";
import { call, createPost, tenant } from "../support/content-helpers";

describe("probes", () => {
  it("GET /health is 200 without auth", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("GET /ready is 200 once the cache store, identity's JWKS and the OpenAPI document are loaded", async () => {
    const res = await call("GET", "/ready");
    const body = (await res.json()) as { status: string; checks: Record<string, boolean> };
    expect(body.checks).toEqual({ cache_store: true, jwks: true, openapi: true });
    expect(res.status).toBe(200);
  });

  it("GET /metrics exposes request counts and a latency histogram by route and status", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "m", status: "published" });
    await call("GET", "/v1/posts", { key: t.ck });
    await call("GET", "/v1/posts?limit=0", { key: t.ck });
    const res = await call("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(/content_http_requests_total\{route="\/v1\/posts",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/content_http_requests_total\{route="\/v1\/posts",method="GET",status="400"\} \d+/);
    for (const status of ["200", "400"]) {
      expect(text).toMatch(
        new RegExp(
          `content_http_request_duration_seconds_bucket\\{route="/v1/posts",method="GET",status="${status}",le="\\+Inf"\\} \\d+`,
        ),
      );
      expect(text).toMatch(
        new RegExp(
          `content_http_request_duration_seconds_count\\{route="/v1/posts",method="GET",status="${status}"\\} \\d+`,
        ),
      );
    }
    // Every sample line is valid exposition syntax: name{labels} value.
    for (const line of text.trimEnd().split("\n")) {
      if (line.startsWith("#")) expect(line).toMatch(/^# (HELP|TYPE) content_\w+ /);
      else expect(line).toMatch(/^content_\w+\{(\w+="(?:[^"\\]|\\.)*",?)+\} [0-9.e+-]+$/);
    }
    expect(text).toContain("# TYPE content_http_request_duration_seconds histogram");
  });
});

describe("OpenAPI document", () => {
  it("declares every route with its security scheme and scopes", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      "apiKey",
      "bearerAuth",
      "publicKeyQuery",
      "publicReadKey",
    ]);
    const expected: [string, string, Record<string, string[]>[]][] = [
      ["/v1/posts", "post", [{ apiKey: ["posts:write"] }]],
      [
        "/v1/posts/{reference}",
        "get",
        [{ apiKey: ["posts:read"] }, { publicReadKey: ["posts:read"] }, { publicKeyQuery: ["posts:read"] }],
      ],
      ["/v1/posts/{reference}", "patch", [{ apiKey: ["posts:write"] }]],
      ["/v1/posts/{reference}/unpublish", "post", [{ apiKey: ["posts:write"] }]],
      ["/v1/posts/{reference}/source", "get", [{ apiKey: ["posts:write"] }]],
      [
        "/v1/posts/{reference}/seo",
        "get",
        [{ apiKey: ["seo:read"] }, { publicReadKey: ["seo:read"] }, { publicKeyQuery: ["seo:read"] }],
      ],
      ["/v1/posts/{reference}/seo", "patch", [{ apiKey: ["seo:write"] }]],
      [
        "/v1/post-types",
        "get",
        [
          { apiKey: ["post_types:read"] },
          { publicReadKey: ["post_types:read"] },
          { publicKeyQuery: ["post_types:read"] },
        ],
      ],
      ["/v1/site", "get", [{ apiKey: [] }, { publicReadKey: [] }, { publicKeyQuery: [] }]],
      ["/v1/media", "post", [{ apiKey: ["media:write"] }]],
      [
        "/v1/media",
        "get",
        [{ apiKey: ["media:read"] }, { publicReadKey: ["media:read"] }, { publicKeyQuery: ["media:read"] }],
      ],
      [
        "/v1/media/{id}",
        "get",
        [{ apiKey: ["media:read"] }, { publicReadKey: ["media:read"] }, { publicKeyQuery: ["media:read"] }],
      ],
      ["/v1/media/{id}", "delete", [{ apiKey: ["media:write"] }]],
      ["/v1/import", "post", [{ apiKey: ["import", "posts:write"] }]],
    ];
    for (const [path, method, security] of expected) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual(security);
    }
    expect(doc.paths["/v1/posts"]?.get?.security).toEqual([
      { apiKey: ["posts:read"] },
      { publicReadKey: ["posts:read"] },
      { publicKeyQuery: ["posts:read"] },
      { apiKey: ["posts:write"] },
    ]);
    for (const p of [
      "/health",
      "/ready",
      "/metrics",
      "/api/v1/sites/{site_id}/api-keys",
      "/api/v1/sites/{site_id}/api-keys/{id}",
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });
});

describe("readiness rule", () => {
  const kvOk = { get: () => Promise.resolve(null) } as unknown as Pick<KVNamespace, "get">;
  const kvDown = { get: () => Promise.reject(new Error("kv down")) } as unknown as Pick<KVNamespace, "get">;
  const jwksOk = { fetch: () => Promise.resolve(Response.json({ keys: [{ kid: "a" }] })) };
  const jwksDown = { fetch: () => Promise.resolve(new Response("down", { status: 503 })) };
  const jwksEmpty = { fetch: () => Promise.resolve(Response.json({ keys: [] })) };

  it("not ready (503) until each of cache store, JWKS and OpenAPI document is loaded", async () => {
    expect(
      (await readiness({ cache: kvOk, identity: jwksOk, jwks: new JwksCache(), openApiLoaded: () => true }))
        .ready,
    ).toBe(true);
    for (const [deps, failing] of [
      [{ cache: kvDown, identity: jwksOk, openApiLoaded: () => true }, "cache_store"],
      [{ cache: kvOk, identity: jwksDown, openApiLoaded: () => true }, "jwks"],
      [{ cache: kvOk, identity: jwksEmpty, openApiLoaded: () => true }, "jwks"],
      [{ cache: kvOk, identity: jwksOk, openApiLoaded: () => false }, "openapi"],
    ] as const) {
      const result = await readiness({ ...deps, jwks: new JwksCache() });
      expect(result.ready, failing).toBe(false);
      expect(result.checks[failing]).toBe(false);
    }
  });

  it("JWKS once loaded survives a failed refresh", async () => {
    const cache = new JwksCache();
    expect(await cache.ensure(jwksOk)).toBe(true);
    expect(await cache.ensure(jwksDown)).toBe(true);
  });
});
