import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import {
  call,
  createKey,
  createPost,
  inOneWindow,
  ORIGIN,
  problem,
  tenant,
} from "../support/content-helpers";
import { auditRows, createForm, formsSite, seedLeads } from "../support/leads-helpers";

/**
 * Sends requests until the first 429 and returns how many passed and the 429. The key's buckets
 * refill by content's clock (capacity / 60 s per second): a test that needs exact counts holds it still.
 */
async function untilLimited(width: number, max: number, run: () => Promise<Response>) {
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
  return { passed, limited: limited! };
}

describe("quotas (token buckets in the ApiKeyGate)", () => {
  it("writes: 60 per minute per key, then 429 with Retry-After; reads use their own bucket", async () => {
    const t = await tenant();
    // The key's buckets count content's clock, held still here: exactly the capacity passes however slow
    // the machine (a real second refilled a token on a loaded one), and the clock moves by Retry-After
    // instead of the test sleeping it.
    let now = Date.now();
    setClockForTests(() => now);
    try {
      const { passed, limited } = await untilLimited(20, 200, () =>
        call("POST", "/v1/posts", { key: t.ck, body: {} }),
      );
      expect(passed).toBe(60);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBe(1);
      expect(limited.headers.get("ratelimit-policy")).toBe('"writes";q=60;w=60');
      expect(limited.headers.get("ratelimit")).toMatch(/^"writes";r=0;t=\d+$/);
      expect((await problem(limited)).code).toBe("RATE_LIMITED");
      expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
      // Retry-After is the time until a token is back: once it has passed, the next write passes the
      // quota (400: its empty body), and only that one.
      now += retryAfter * 1000;
      const again = await call("POST", "/v1/posts", { key: t.ck, body: {} });
      expect(again.status).toBe(400);
      expect(again.headers.get("ratelimit")).toMatch(/^"writes";r=0;t=\d+$/);
      expect((await call("POST", "/v1/posts", { key: t.ck, body: {} })).status).toBe(429);
    } finally {
      setClockForTests(null);
    }
  });

  it("the quota is per key: another key of the same site is unaffected", async () => {
    const t = await tenant();
    const other = await tenant();
    // The quota comes before the body's checks, its unknown fields too (422 UNKNOWN_FIELD, issue 33): the
    // flood's bodies carry one, and the key is still limited (one request, not after it: the bucket refills
    // a token a second, so a request sent after the flood may find one).
    const unknown = { title: "x", zz_unknown_probe: true };
    const { limited } = await untilLimited(20, 200, () =>
      call("POST", "/v1/posts", { key: t.ck, body: unknown }),
    );
    expect(limited.status).toBe(429);
    expect((await call("POST", "/v1/posts", { key: other.ck, body: {} })).status).toBe(400);
    expect((await call("POST", "/v1/posts", { key: other.ck, body: unknown })).status).toBe(422);
  });

  it("reads: 600 per minute per key (counted where the request lands), then 429 with Retry-After", {
    timeout: 180_000,
  }, async () => {
    const { passed, limited } = await inOneWindow(async () => {
      const t = await tenant();
      return untilLimited(50, 2000, () => call("GET", "/v1/site", { key: t.ck }));
    });
    expect(passed).toBe(600);
    expect(limited.status).toBe(429);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
    // The binding does not say when its window ends: at most one window.
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
    expect(limited.headers.get("ratelimit")).toBe('"reads";r=0;t=60');
  });

  it("public keys: also 60 reads per minute per (key, client IP)", async () => {
    const { t, passed, limited } = await inOneWindow(async () => {
      const t = await tenant();
      const run = await untilLimited(20, 300, () =>
        call("GET", "/v1/site", { key: t.pk, origin: ORIGIN, ip: "203.0.113.7" }),
      );
      return { t, ...run };
    });
    expect(passed).toBe(60);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("ratelimit")).toBe('"public-reads-per-ip";r=0;t=60');
    expect(limited.headers.get("ratelimit-policy")).toBe(
      '"reads";q=600;w=60, "public-reads-per-ip";q=60;w=60',
    );
    // The 429 of a browser key still carries CORS headers so the page can read it.
    expect(limited.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect((await call("GET", "/v1/site", { key: t.pk, origin: ORIGIN, ip: "203.0.113.8" })).status).toBe(
      200,
    );
  });

  it("leads:read routes take from a 10 per minute bucket on top of the read quota", async () => {
    const t = await tenant();
    const leadsKey = await createKey(t.site, { scopes: ["export", "leads:read", "posts:write"] });
    const statuses: number[] = [];
    let limited: Response | null = null;
    for (let i = 0; i < 11; i++) {
      const res = await call("GET", "/v1/export?resource=leads", { key: leadsKey.key });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else {
        expect(res.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60, "leads";q=10;w=60');
        expect(res.headers.get("ratelimit")).toMatch(new RegExp(`"leads";r=${9 - i};t=\\d+$`));
        await res.arrayBuffer();
      }
    }
    // No forms backend is bound (404 after the quota), but the 11th lead read inside a minute is refused.
    expect(statuses.slice(0, 10).every((s) => s === 404)).toBe(true);
    expect(statuses[10]).toBe(429);
    const retryAfter = Number(limited!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(3);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect((await problem(limited!)).code).toBe("RATE_LIMITED");
    // The same key's other reads are not limited by the leads bucket.
    const posts = await call("GET", "/v1/export?resource=posts", { key: leadsKey.key });
    expect(posts.status).toBe(200);
    expect(posts.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
    await posts.arrayBuffer();
  });

  it("the 11th lead read in a minute (list, get and export alike) is 429 with Retry-After, unaudited", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 3);
    const key = (await createKey(site, { scopes: ["leads:read", "export", "post_types:read"] })).key;
    // Ordinary reads of the key take nothing from the leads bucket.
    for (let i = 0; i < 15; i++) expect((await call("GET", "/v1/post-types", { key })).status).toBe(200);
    const { items } = (await (await call("GET", "/v1/leads", { key })).json()) as { items: { id: string }[] };
    const reads = [
      ...Array.from({ length: 3 }, () => "/v1/leads?status=all"),
      ...items.map((l) => `/v1/leads/${l.id}`),
      ...Array.from({ length: 3 }, () => "/v1/export?resource=leads"),
    ];
    for (const [i, path] of reads.entries()) {
      const res = await call("GET", path, { key });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("ratelimit")).toMatch(new RegExp(`"leads";r=${8 - i};t=\\d+$`));
      await res.arrayBuffer();
    }
    expect(await auditRows(site.id)).toHaveLength(10);
    for (const path of ["/v1/leads", `/v1/leads/${items[0]!.id}`, "/v1/export?resource=leads"]) {
      const limited = await call("GET", path, { key });
      expect(limited.status, path).toBe(429);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(6);
      expect((await problem(limited)).code).toBe("RATE_LIMITED");
    }
    expect(await auditRows(site.id)).toHaveLength(10);
    // The leads bucket is the key's: the key's other reads, and another key's lead reads, go on.
    expect((await call("GET", "/v1/post-types", { key })).status).toBe(200);
    const other = (await createKey(site, { scopes: ["leads:read"] })).key;
    expect((await call("GET", "/v1/leads", { key: other })).status).toBe(200);
  });

  it("RateLimit headers: writes count down on 201; reads carry their policies on 200 and 304", async () => {
    const t = await tenant();
    const created = await call("POST", "/v1/posts", { key: t.ck, body: { title: "x", status: "published" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("ratelimit-policy")).toBe('"writes";q=60;w=60');
    expect(created.headers.get("ratelimit")).toMatch(/^"writes";r=59;t=\d+$/);
    const { id } = (await created.json()) as { id: string };
    const first = await call("GET", `/v1/posts/${id}`, { key: t.pk, origin: ORIGIN, ip: "198.51.100.1" });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60, "public-reads-per-ip";q=60;w=60');
    // The read limiters answer only allowed or not: no remaining count to report until a refusal (r=0).
    expect(first.headers.get("ratelimit")).toBeNull();
    const notModified = await call("GET", `/v1/posts/${id}`, {
      key: t.pk,
      origin: ORIGIN,
      ip: "198.51.100.1",
      headers: { "if-none-match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("ratelimit-policy")).toBe(
      '"reads";q=600;w=60, "public-reads-per-ip";q=60;w=60',
    );
  });

  it("successful reads carry RateLimit-Policy", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "x" });
    const res = await call("GET", "/v1/posts", { key: t.ck });
    expect(res.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
  });
});
