/**
 * The auth of `@site-platform/client` (packages/client), request by request: `{ bearer }` and
 * `{ secretKey }` send `Authorization: Bearer …`, `{ publicKey }` sends `?key=pk_…` and no Authorization
 * (a simple request from a browser: no preflight), a POST body survives the rewrite, and a key of the
 * wrong kind is refused before any request.
 */
import { contentClient, identityClient } from "@site-platform/client";
import { describe, expect, it } from "vitest";

function recorder() {
  const seen: Request[] = [];
  const fetch = async (request: Request) => {
    seen.push(request);
    return Response.json({ items: [] });
  };
  return { seen, fetch };
}

describe("@site-platform/client auth", () => {
  it("bearer and secretKey: Authorization: Bearer on every request", async () => {
    const a = recorder();
    await identityClient({ fetch: a.fetch, auth: { bearer: "eyJ.token" } }).GET("/api/v1/auth/orgs");
    expect(a.seen[0]!.headers.get("authorization")).toBe("Bearer eyJ.token");
    expect(a.seen[0]!.url).toBe("http://127.0.0.1:8787/api/v1/auth/orgs");
    const b = recorder();
    await contentClient({ fetch: b.fetch, auth: { secretKey: "ck_secret" } }).GET("/v1/posts");
    expect(b.seen[0]!.headers.get("authorization")).toBe("Bearer ck_secret");
  });

  it("publicKey: ?key= beside the call's own query, no Authorization, the body kept", async () => {
    const r = recorder();
    const reader = contentClient({
      fetch: r.fetch,
      baseUrl: "https://api.example.test",
      auth: { publicKey: "pk_public" },
      headers: { origin: "https://blog.example.test" },
    });
    await reader.GET("/v1/posts", { params: { query: { limit: 5 } } });
    const url = new URL(r.seen[0]!.url);
    expect(url.searchParams.get("key")).toBe("pk_public");
    expect(url.searchParams.get("limit")).toBe("5");
    expect(r.seen[0]!.headers.get("authorization")).toBeNull();
    expect(r.seen[0]!.headers.get("origin")).toBe("https://blog.example.test");
    await reader.POST("/v1/analytics/collect", { body: { path: "/hello" } });
    expect(new URL(r.seen[1]!.url).searchParams.get("key")).toBe("pk_public");
    expect(await r.seen[1]!.json()).toEqual({ path: "/hello" });
  });

  it("refuses a key of the wrong kind before any request", () => {
    expect(() => contentClient({ auth: { secretKey: "pk_public" } })).toThrow(TypeError);
    expect(() => contentClient({ auth: { publicKey: "ck_secret" } })).toThrow(TypeError);
  });
});
