/**
 * The public origin's routing: `/v1/*` and `/media/*` reach content straight from the entry socket, by
 * the `routes` of content's wrangler config (as Cloudflare routes path patterns of one hostname to
 * different Workers), and every other path reaches the gateway. Miniflare is booted as `npm start` boots
 * it (scripts/workers.mjs with the configs' routes), except that the gateway is a stub that says it
 * answered: a path that reaches it shows that, so the public paths provably skip the second Worker. The
 * workerd test plugin sends SELF straight to its main worker, so this runs in Node.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_PUBLIC_PATHS, contentRoutes } from "../../scripts/deploy-config.mjs";
import { buildWorker, root, routePatterns, workerOptions } from "../../scripts/workers.mjs";
import { testSecrets } from "../support/workers.ts";

let mf: Miniflare;
const buildDir = path.join(root, ".test-build", `routing-${process.pid}`);
const STUB = "gateway-stub";

beforeAll(async () => {
  const real = (["identity", "content", "sites"] as const).map((name) => ({
    ...workerOptions(name, {
      scriptPath: buildWorker(name, buildDir),
      bindings: testSecrets,
      withRoutes: true,
    }),
    outboundService: () => new Response("no network in this test", { status: 503 }),
  }));
  mf = new Miniflare(
    convertV4MiniflareOptions({
      cf: { colo: "DEV", country: "XX", asn: 0 },
      handleStructuredLogs: () => {},
      workers: [
        // The entry worker (the gateway's place): whatever reaches it says so.
        {
          name: "gateway",
          modules: true,
          script: `export default { fetch() { return new Response("${STUB}", { headers: { "x-answered-by": "${STUB}" } }); } };`,
          routes: routePatterns("gateway"),
        },
        ...real,
      ],
    } as never),
  );
  await mf.ready;
});

afterAll(async () => {
  await mf?.dispose();
  rmSync(buildDir, { recursive: true, force: true });
});

async function answeredBy(url: string, init?: RequestInit) {
  const res = await mf.dispatchFetch(url, init as never);
  const body = await res.text();
  return { res, body, gateway: res.headers.get("x-answered-by") === STUB };
}

describe("the public origin's routes", () => {
  it("are the deploy's public paths of content, and the gateway has none of its own", () => {
    expect(routePatterns("content")).toEqual(CONTENT_PUBLIC_PATHS.map((p) => `*${p}`));
    expect(routePatterns("gateway")).toEqual([]);
  });

  it("send /v1/* and /media/* to content without the gateway, on any host", async () => {
    for (const url of ["http://127.0.0.1:8787/v1/posts", "https://api.example.com/v1/posts?limit=1"]) {
      const { res, body, gateway } = await answeredBy(url);
      expect(gateway, url).toBe(false);
      expect(res.status, url).toBe(401);
      expect(JSON.parse(body).code, url).toBe("UNAUTHENTICATED");
      expect(res.headers.get("x-request-id"), url).toMatch(/^[0-9A-Z]{26}$/);
    }
    // A content path added later follows by prefix (here one that does not exist: content's own 404).
    const later = await answeredBy("http://localhost/v1/a/path/added/later");
    expect(later.gateway).toBe(false);
    expect(later.res.status).toBe(404);
    expect(later.res.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    const media = await answeredBy("http://127.0.0.1:8787/media/sites/none.png");
    expect(media.gateway).toBe(false);
    expect(media.res.status).toBe(404);
    expect(media.res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answer CORS and the request id on content's route as the gateway did", async () => {
    const id = "01JABCDEFGHJKMNPQRSTVWXYZ0";
    const { res, gateway } = await answeredBy("http://127.0.0.1:8787/v1/posts", {
      headers: { origin: "https://blog.example", "x-request-id": id },
    });
    expect(gateway).toBe(false);
    expect(res.headers.get("x-request-id")).toBe(id);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://blog.example");
    expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit");
    const preflight = await answeredBy("http://127.0.0.1:8787/v1/posts", {
      method: "OPTIONS",
      headers: { origin: "https://blog.example", "access-control-request-method": "POST" },
    });
    expect(preflight.gateway).toBe(false);
    expect(preflight.res.status).toBe(204);
    expect(preflight.res.headers.get("access-control-allow-methods")).toContain("PATCH");
  });

  it("leave every other path to the gateway: its probes, the dashboard API, the hosted pages, near misses", async () => {
    for (const p of [
      "/health",
      "/api/v1/sites",
      "/api/v1/auth/login/start",
      "/auth/login",
      "/v1",
      "/v10/posts",
      "/mediafile",
      "/docs",
    ]) {
      const { gateway } = await answeredBy(`http://127.0.0.1:8787${p}`);
      expect(gateway, p).toBe(true);
    }
  });
});

describe("content's production routes", () => {
  it("are the public paths on each host of the gateway, in its zone; none without gateway routes", () => {
    expect(contentRoutes([{ pattern: "api.example.com", custom_domain: true } as never])).toEqual([
      "api.example.com/v1/*",
      "api.example.com/media/*",
    ]);
    expect(contentRoutes([{ pattern: "api.example.com/*", zone_name: "example.com" }])).toEqual([
      { pattern: "api.example.com/v1/*", zone_name: "example.com" },
      { pattern: "api.example.com/media/*", zone_name: "example.com" },
    ]);
    expect(contentRoutes([])).toEqual([]);
  });
});
