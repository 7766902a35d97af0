import { describe, expect, it } from "vitest";
import { call, createPost, ORIGIN, problem, tenant } from "../support/content-helpers";

/**
 * Sends requests until the first 429 and returns how many passed and how long it took. Buckets refill
 * while the test runs (capacity / 60 s per second), so the allowed count is capacity plus that refill.
 */
async function untilLimited(width: number, max: number, run: () => Promise<Response>) {
  const started = Date.now();
  let passed = 0;
  let limited: Response | null = null;
  while (!limited && passed < max) {
    const batch = await Promise.all(Array.from({ length: width }, () => run()));
    for (const r of batch) {
      if (r.status === 429 && !limited) limited = r;
      else if (r.status !== 429) passed++;
      if (r !== limited) await r.arrayBuffer();
    }
  }
  return { passed, limited: limited!, seconds: (Date.now() - started) / 1000 };
}

function expectWithinBucket(passed: number, capacity: number, seconds: number) {
  expect(passed).toBeGreaterThanOrEqual(capacity);
  expect(passed).toBeLessThanOrEqual(capacity + Math.ceil((seconds * capacity) / 60) + 1);
}

describe("quotas (token buckets in the ApiKeyGate)", () => {
  it("writes: 60 per minute per key, then 429 with Retry-After; reads use their own bucket", async () => {
    const t = await tenant();
    const { passed, limited, seconds } = await untilLimited(20, 200, () =>
      call("POST", "/v1/posts", { key: t.ck, body: {} }),
    );
    expectWithinBucket(passed, 60, seconds);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(limited.headers.get("ratelimit-policy")).toBe('"writes";q=60;w=60');
    expect(limited.headers.get("ratelimit")).toMatch(/^"writes";r=0;t=\d+$/);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
  });

  it("the quota is per key: another key of the same site is unaffected", async () => {
    const t = await tenant();
    const other = await tenant();
    const { limited } = await untilLimited(20, 200, () => call("POST", "/v1/posts", { key: t.ck, body: {} }));
    expect(limited.status).toBe(429);
    expect((await call("POST", "/v1/posts", { key: other.ck, body: {} })).status).toBe(400);
  });

  it("reads: 600 per minute per key", { timeout: 120_000 }, async () => {
    const t = await tenant();
    const { passed, limited, seconds } = await untilLimited(50, 2000, () =>
      call("GET", "/v1/site", { key: t.ck }),
    );
    expectWithinBucket(passed, 600, seconds);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
    expect(limited.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
  });

  it("public keys: also 60 reads per minute per (key, client IP)", async () => {
    const t = await tenant();
    const { passed, limited, seconds } = await untilLimited(20, 300, () =>
      call("GET", "/v1/site", { key: t.pk, origin: ORIGIN, ip: "203.0.113.7" }),
    );
    expectWithinBucket(passed, 60, seconds);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("ratelimit-policy")).toBe(
      '"reads";q=600;w=60, "public-reads-per-ip";q=60;w=60',
    );
    // The 429 of a browser key still carries CORS headers so the page can read it.
    expect(limited.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect((await call("GET", "/v1/site", { key: t.pk, origin: ORIGIN, ip: "203.0.113.8" })).status).toBe(
      200,
    );
  });

  it("successful answers carry RateLimit and RateLimit-Policy headers", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "x" });
    const res = await call("GET", "/v1/posts", { key: t.ck });
    expect(res.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
    expect(res.headers.get("ratelimit")).toMatch(/^"reads";r=599;t=\d+$/);
  });
});
