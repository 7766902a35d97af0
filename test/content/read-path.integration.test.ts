import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import { edgeCacheUrl } from "../../src/content/core/edge-cache";
import { KEY_CONTEXT_TTL_MS } from "../../src/content/keys/key-cache";
import { contentDbOf, contentGroupOf } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  contentRequest,
  createKey,
  createPost,
  inOneWindow,
  ORIGIN,
  ownerHeaders,
  paragraph,
  problem,
  type RequestOptions,
  seedMedia,
  tenant,
  testEnv,
} from "../support/content-helpers";
import { countingContentEnv, fetchThrough, type Hops } from "../support/storage-hops";

afterEach(() => setClockForTests(null));

/** A request through the Worker's entrypoint over counting bindings: the answer and its hops. */
async function counted(method: string, path: string, options: RequestOptions = {}) {
  const { env, hops } = countingContentEnv();
  const res = await fetchThrough(env, contentRequest(method, path, options));
  return { res, hops, text: res.status === 304 ? "" : await res.text() };
}

function storageOf(hops: Hops) {
  return { d1: hops.d1, durableObject: hops.durableObject, kv: hops.kv, r2: hops.r2 };
}

const NO_HOPS = { d1: 0, durableObject: 0, kv: 0, r2: 0 };

/** The content worker's binding of the site's group (DB_G000, …). */
async function groupBindingOf(siteId: string): Promise<string> {
  return `DB_${(await contentGroupOf(siteId)).toUpperCase()}`;
}

async function publishedSite() {
  const t = await tenant();
  const media = await seedMedia(t.site.id);
  const first = await createPost(t.ck, {
    title: "First",
    status: "published",
    blocks_json: paragraph("One"),
  });
  const second = await createPost(t.ck, {
    title: "Second",
    status: "published",
    featured_image_id: media,
    blocks_json: { blocks: [{ type: "image", data: { media_id: media, alt: "A" } }] },
  });
  return { ...t, media, first, second };
}

const asPk = (t: { pk: string }, ip = "198.51.100.20"): RequestOptions => ({ key: t.pk, origin: ORIGIN, ip });

describe("a warm public read spends at most one storage hop (it spends none)", () => {
  it("GET /v1/posts with a pk_ key: the first read costs the key and one batch; the same read again costs no storage hop", async () => {
    const t = await publishedSite();
    const cold = await counted("GET", "/v1/posts?limit=10", asPk(t));
    expect(cold.res.status).toBe(200);
    // The key's site from the directory (a key this isolate has not met: docs/decisions/site-groups.md),
    // then the key and one batch in the site's group.
    expect(storageOf(cold.hops)).toEqual({ ...NO_HOPS, d1: 3 });
    expect(cold.hops.d1By).toEqual({ DIRECTORY: 1, [await groupBindingOf(t.site.id)]: 2 });
    const warm = await counted("GET", "/v1/posts?limit=10", asPk(t));
    expect(warm.res.status).toBe(200);
    expect(warm.hops.storage()).toBeLessThanOrEqual(1);
    expect(storageOf(warm.hops)).toEqual(NO_HOPS);
    expect(warm.text).toBe(cold.text);
    expect(warm.res.headers.get("etag")).toBe(cold.res.headers.get("etag"));
    expect(warm.res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    // The quota is still taken on every read: per key and per (key, client IP), where the request lands.
    expect(warm.hops.limiter).toBe(2);
    expect(JSON.parse(warm.text).items.map((i: { id: string }) => i.id)).toEqual([t.second.id, t.first.id]);
  });

  it("the normalized query is the entry: defaults, parameter order, value order and the key parameter do not matter", async () => {
    const t = await publishedSite();
    await counted("GET", "/v1/posts?tag=b,a&language=en", asPk(t));
    for (const path of [
      "/v1/posts?language=en&tag=a,b&limit=20",
      `/v1/posts?tag=a,b&language=en&key=${t.pk}`,
      "/v1/posts?language=EN&tag=b,a&unknown=1",
    ]) {
      const again = await counted("GET", path, asPk(t));
      expect(again.res.status, path).toBe(200);
      expect(storageOf(again.hops), path).toEqual(NO_HOPS);
    }
  });

  it("GET /v1/posts/{reference} by slug and by id, with ck_ and pk_ keys: the second read spends no storage hop", async () => {
    const t = await publishedSite();
    for (const [path, options] of [
      [`/v1/posts/${t.second.slug}`, asPk(t)],
      [`/v1/posts/${t.second.id.toLowerCase()}`, asPk(t)],
      [`/v1/posts/${t.second.slug}`, { key: t.ck }],
    ] as const) {
      const cold = await counted("GET", path, options);
      expect(cold.res.status, path).toBe(200);
      // The post, its media and the site's next publication in one batch (the key may already be warm),
      // in the site's group; the key's site from the directory the first time this isolate meets the key.
      const group = await groupBindingOf(t.site.id);
      expect(cold.hops.d1By[group] ?? 0, path).toBeLessThanOrEqual(2);
      expect(cold.hops.d1By.DIRECTORY ?? 0, path).toBeLessThanOrEqual(1);
      expect(cold.hops.d1, path).toBe((cold.hops.d1By[group] ?? 0) + (cold.hops.d1By.DIRECTORY ?? 0));
      const warm = await counted("GET", path, options);
      expect(storageOf(warm.hops), path).toEqual(NO_HOPS);
      expect(warm.text, path).toBe(cold.text);
      const detail = JSON.parse(warm.text) as { content_html: string; featured_image_url: string };
      expect(detail.featured_image_url).toBe(
        `${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${t.media}.png`,
      );
      expect(detail.content_html).toContain(`${testEnv.MEDIA_PUBLIC_BASE}/sites/${t.site.id}/${t.media}.png`);
    }
  });

  it("ETag and 304 still work, from the cache too (no storage hop); after a change the old tag gets the new body", async () => {
    const t = await publishedSite();
    const first = await counted("GET", `/v1/posts/${t.first.slug}`, asPk(t));
    const etag = first.res.headers.get("etag")!;
    expect(first.res.headers.get("cache-control")).toBe("public, max-age=60");
    const notModified = await counted("GET", `/v1/posts/${t.first.slug}`, {
      ...asPk(t),
      headers: { "if-none-match": etag },
    });
    expect(notModified.res.status).toBe(304);
    expect(notModified.res.headers.get("etag")).toBe(etag);
    expect(storageOf(notModified.hops)).toEqual(NO_HOPS);
    await call("PATCH", `/v1/posts/${t.first.id}`, { key: t.ck, body: { title: "First, edited" } });
    const changed = await counted("GET", `/v1/posts/${t.first.slug}`, {
      ...asPk(t),
      headers: { "if-none-match": etag },
    });
    expect(changed.res.status).toBe(200);
    expect(changed.res.headers.get("etag")).not.toBe(etag);
    expect(JSON.parse(changed.text).title).toBe("First, edited");
  });

  it("the authenticated status listing and `since` listings are never cached: each read goes to D1", async () => {
    const t = await publishedSite();
    for (const path of ["/v1/posts?status=published,draft", "/v1/posts?since=2000-01-01T00:00:00Z"]) {
      await counted("GET", path, { key: t.ck });
      const again = await counted("GET", path, { key: t.ck });
      expect(again.res.status, path).toBe(200);
      expect(again.hops.d1, path).toBe(1);
    }
    const status = await call("GET", "/v1/posts?status=published", { key: t.ck });
    expect(status.headers.get("cache-control")).toBe("private, no-store");
    expect(status.headers.get("etag")).toBeNull();
  });

  it("a `since` listing (never cached) reads the page alone: one statement, not the site's next publication", async () => {
    const t = await publishedSite();
    // The key's context in the isolate first: what is counted below is the listing's own reads.
    expect((await call("GET", "/v1/posts?since=2001-01-01T00:00:00Z", { key: t.ck })).status).toBe(200);
    const since = await counted("GET", "/v1/posts?since=2000-01-01T00:00:00Z&limit=1", { key: t.ck });
    expect(since.res.status).toBe(200);
    expect({ d1: since.hops.d1, statements: since.hops.d1Statements }).toEqual({ d1: 1, statements: 1 });
    const page = JSON.parse(since.text) as { items: { id: string }[]; next_cursor: string };
    expect(page.items.map((i) => i.id)).toEqual([t.second.id]);
    // Its next page too (the cursor keeps the watermark).
    const next = await counted(
      "GET",
      `/v1/posts?since=2000-01-01T00:00:00Z&limit=1&cursor=${page.next_cursor}`,
      {
        key: t.ck,
      },
    );
    expect(JSON.parse(next.text).items.map((i: { id: string }) => i.id)).toEqual([t.first.id]);
    expect(next.hops.d1Statements).toBe(1);
    // A cached listing still reads the next publication with its page, in the same round trip.
    const cached = await counted("GET", "/v1/posts?limit=1", { key: t.ck });
    expect({ d1: cached.hops.d1, statements: cached.hops.d1Statements }).toEqual({ d1: 1, statements: 2 });
  });
});

describe("a write invalidates: the next read shows the change, never a cached body", () => {
  async function titles(path: string, options: RequestOptions) {
    const res = await call("GET", path, options);
    expect(res.status).toBe(200);
    return ((await res.json()) as { items: { title: string }[] }).items.map((i) => i.title);
  }

  it("create, update, publish, unpublish: list and detail follow each write at once", async () => {
    const t = await publishedSite();
    const pk = asPk(t);
    expect(await titles("/v1/posts", pk)).toEqual(["Second", "First"]);
    await createPost(t.ck, { title: "Third", status: "published" });
    expect(await titles("/v1/posts", pk)).toEqual(["Third", "Second", "First"]);
    expect((await call("GET", `/v1/posts/${t.first.slug}`, pk)).status).toBe(200);
    await call("PATCH", `/v1/posts/${t.first.id}`, { key: t.ck, body: { title: "First, renamed" } });
    expect(await titles("/v1/posts", pk)).toEqual(["Third", "Second", "First, renamed"]);
    expect(
      ((await (await call("GET", `/v1/posts/${t.first.slug}`, pk)).json()) as { title: string }).title,
    ).toBe("First, renamed");
    await call("POST", `/v1/posts/${t.first.id}/unpublish`, { key: t.ck });
    expect(await titles("/v1/posts", pk)).toEqual(["Third", "Second"]);
    expect((await call("GET", `/v1/posts/${t.first.slug}`, pk)).status).toBe(404);
    const draft = await createPost(t.ck, { title: "Later", status: "draft" });
    expect(await titles("/v1/posts", pk)).toEqual(["Third", "Second"]);
    await call("PATCH", `/v1/posts/${draft.id}`, { key: t.ck, body: { status: "published" } });
    expect(await titles("/v1/posts", pk)).toEqual(["Later", "Third", "Second"]);
  });

  it("a deleted media asset leaves the cached detail at once; a site push changes the URLs at once", async () => {
    const t = await publishedSite();
    const mediaKey = (await createKey(t.site, { scopes: ["media:write", "media:read"] })).key;
    const before = (await (await call("GET", `/v1/posts/${t.second.id}`, asPk(t))).json()) as {
      featured_image_url: string | null;
      url: string;
    };
    expect(before.featured_image_url).not.toBeNull();
    expect((await call("DELETE", `/v1/media/${t.media}`, { key: mediaKey })).status).toBe(204);
    const after = (await (await call("GET", `/v1/posts/${t.second.id}`, asPk(t))).json()) as {
      featured_image_url: string | null;
    };
    expect(after.featured_image_url).toBeNull();
    await content.syncSite({
      ...t.site,
      primary_domain: "moved.example.test",
      updated_at: new Date().toISOString(),
    });
    const moved = (await (await call("GET", `/v1/posts/${t.second.id}`, asPk(t))).json()) as { url: string };
    expect(moved.url).toBe(`https://moved.example.test/${t.second.slug}`);
    expect(before.url).not.toBe(moved.url);
  });

  it("a post type removed over RPC takes its posts out of the cached answers at once", async () => {
    const t = await tenant();
    expect(
      (await content.definePostType({ site_id: t.site.id, slug: "recipe", name: "Recipes", public: true }))
        .ok,
    ).toBe(true);
    await createPost(t.ck, { title: "Soup", status: "published", post_type: "recipe" });
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Soup"]);
    await content.removePostType({ site_id: t.site.id, slug: "recipe" });
    expect(await titles("/v1/posts", asPk(t))).toEqual([]);
  });

  it("a write this isolate did not see (another isolate's) shows once the key context is older than the bound", async () => {
    const t = await publishedSite();
    const start = Date.now();
    setClockForTests(() => start);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Second", "First"]);
    // As another isolate's write lands: in D1 (the triggers move the site's content version), not here.
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET title = 'Elsewhere' WHERE id = ?")
      .bind(t.first.id)
      .run();
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS - 1);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Second", "First"]);
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Second", "Elsewhere"]);
  });

  it("a cached answer never outlives the site's next scheduled publication", async () => {
    const t = await publishedSite();
    const due = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
    const soon = await createPost(t.ck, {
      title: "Soon",
      status: "scheduled",
      published_at: new Date(due).toISOString(),
    });
    const start = Date.now();
    setClockForTests(() => start);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Second", "First"]);
    expect((await call("GET", `/v1/posts/${t.first.slug}`, asPk(t))).status).toBe(200);
    // Still within the key context's bound and the entry's 60 s: only the publication ends the entry.
    setClockForTests(() => due - 1);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Second", "First"]);
    setClockForTests(() => due);
    expect(await titles("/v1/posts", asPk(t))).toEqual(["Soon", "Second", "First"]);
    expect((await call("GET", `/v1/posts/${soon.slug}`, asPk(t))).status).toBe(200);
  });
});

describe("cached answers keep their walls", () => {
  async function plant(
    key: { siteId: string; kind: "secret" | "public"; contentVersion: number },
    read: string,
    params: unknown,
    body: unknown,
  ) {
    const cache = await caches.open("content:public-reads");
    const text = JSON.stringify(body);
    await cache.put(
      await edgeCacheUrl(BASE, key, read, params),
      new Response(text, {
        headers: {
          etag: '"planted"',
          "cache-control": "max-age=600",
          "x-fresh-until": String(Date.now() + 600_000),
        },
      }),
    );
  }

  async function version(siteId: string): Promise<number> {
    const row = await (await contentDbOf(siteId))
      .prepare("SELECT content_version FROM sites WHERE id = ?")
      .bind(siteId)
      .first<{ content_version: number }>();
    return row!.content_version;
  }

  const listParams = {
    limit: 20,
    cursor: null,
    filters: {
      categories: [],
      tags: [],
      match: null,
      since: null,
      language: null,
      postType: null,
      author: null,
    },
  };

  it("an entry of the ck_ answers is never served to a pk_ key, nor the other way round", async () => {
    const t = await publishedSite();
    const v = await version(t.site.id);
    await plant({ siteId: t.site.id, kind: "secret", contentVersion: v }, "posts", listParams, {
      items: "ck-only",
    });
    const ck = await call("GET", "/v1/posts", { key: t.ck });
    // The planted entry sits exactly where the ck_ answer of this listing lives…
    expect(await ck.json()).toEqual({ items: "ck-only" });
    // …and a pk_ key of the same site, same listing, never reaches it.
    const pk = await call("GET", "/v1/posts", asPk(t));
    expect(((await pk.json()) as { items: unknown[] }).items).toHaveLength(2);
    // A detail's entry is keyed by whether the key reads seo (issue 35); this pk_ key has seo:read.
    await plant(
      { siteId: t.site.id, kind: "public", contentVersion: v },
      "post",
      { id: t.first.id, seo: true },
      { title: "pk-only" },
    );
    expect(
      ((await (await call("GET", `/v1/posts/${t.first.id}`, asPk(t))).json()) as { title: string }).title,
    ).toBe("pk-only");
    expect(
      ((await (await call("GET", `/v1/posts/${t.first.id}`, { key: t.ck })).json()) as { title: string })
        .title,
    ).toBe("First");
  });

  it("tenant wall: site A's cached answers are never served to a key of site B", async () => {
    const a = await publishedSite();
    const b = await tenant();
    await createPost(b.ck, { title: "B's only post", status: "published" });
    const aList = await call("GET", "/v1/posts", asPk(a));
    expect(((await aList.json()) as { items: unknown[] }).items).toHaveLength(2);
    const aDetail = await call("GET", `/v1/posts/${a.first.id}`, asPk(a));
    expect(aDetail.status).toBe(200);
    // Same paths, same content version numbers or not: B sees B's site only; A's id is a plain 404.
    await plant(
      { siteId: a.site.id, kind: "public", contentVersion: await version(b.site.id) },
      "posts",
      listParams,
      {
        items: "A",
      },
    );
    const bList = (await (await call("GET", "/v1/posts", asPk(b))).json()) as { items: { title: string }[] };
    expect(bList.items.map((i) => i.title)).toEqual(["B's only post"]);
    const bDetail = await call("GET", `/v1/posts/${a.first.id}`, asPk(b));
    expect(bDetail.status).toBe(404);
    expect((await problem(bDetail)).code).toBe("NOT_FOUND");
    expect((await call("GET", `/v1/posts/${a.first.slug}`, asPk(b))).status).toBe(404);
  });

  it("a restricted post is in no cached answer; made public by a write, it appears at once", async () => {
    const t = await tenant();
    const hidden = await createPost(t.ck, { title: "Members", status: "published", access: "restricted" });
    const list = await call("GET", "/v1/posts", asPk(t));
    expect(((await list.json()) as { items: unknown[] }).items).toEqual([]);
    expect((await call("GET", `/v1/posts/${hidden.id}`, asPk(t))).status).toBe(404);
    await call("PATCH", `/v1/posts/${hidden.id}`, { key: t.ck, body: { access: "public" } });
    expect((await call("GET", `/v1/posts/${hidden.id}`, asPk(t))).status).toBe(200);
  });
});

describe("revocation takes effect within the documented bound", () => {
  it("revoked through the API: refused at once in the revoking isolate, though its context was cached", async () => {
    const t = await publishedSite();
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(200);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
    for (const id of [t.publicKey.id, t.secretKey.id]) {
      const res = await call("DELETE", `/api/v1/sites/${t.site.id}/api-keys/${id}`, {
        headers: ownerHeaders(t.site),
      });
      expect(res.status).toBe(204);
    }
    for (const options of [asPk(t), { key: t.ck }]) {
      const refused = await call("GET", "/v1/posts", options);
      expect(refused.status).toBe(401);
      expect((await problem(refused)).code).toBe("UNAUTHENTICATED");
    }
  });

  it(`revoked elsewhere: a cached context is used for less than ${KEY_CONTEXT_TTL_MS / 1000} s, never at or past it`, async () => {
    const t = await publishedSite();
    const start = Date.now();
    setClockForTests(() => start);
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(200);
    // As another isolate's revocation lands: in D1 only.
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(new Date(start).toISOString(), t.publicKey.id)
      .run();
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS - 1);
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(200);
    setClockForTests(() => start + KEY_CONTEXT_TTL_MS);
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(401);
    setClockForTests(() => start);
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(401);
  });

  it("writes never use a cached context: a key revoked elsewhere cannot write even inside the bound", async () => {
    const t = await publishedSite();
    const start = Date.now();
    setClockForTests(() => start);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(new Date(start).toISOString(), t.secretKey.id)
      .run();
    const write = await call("POST", "/v1/posts", { key: t.ck, body: { title: "Too late" } });
    expect(write.status).toBe(401);
    expect((await call("GET", "/v1/posts", { key: t.ck })).status).toBe(200);
  });

  it("a deleted site's keys stop at once in the isolate that receives the push", async () => {
    const t = await publishedSite();
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(200);
    await content.syncSite({
      ...t.site,
      status: "deleted",
      updated_at: new Date(Date.now() + 1000).toISOString(),
    });
    expect((await call("GET", "/v1/posts", asPk(t))).status).toBe(401);
  });
});

describe("read quotas need no round trip, and still hold on cached answers", () => {
  it("the 61st read of one cached listing from one client inside a window is 429 RATE_LIMITED; another client goes on", async () => {
    const { t, statuses, limited } = await inOneWindow(async () => {
      const t = await publishedSite();
      const statuses: number[] = [];
      let limited: Response | null = null;
      for (let i = 0; i < 61; i++) {
        const res = await call("GET", "/v1/posts", asPk(t, "203.0.113.61"));
        statuses.push(res.status);
        if (res.status === 429) limited = res;
        else await res.arrayBuffer();
      }
      return { t, statuses, limited };
    });
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect((await problem(limited!)).code).toBe("RATE_LIMITED");
    expect(limited!.headers.get("retry-after")).toBe("60");
    expect(limited!.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const other = await counted("GET", "/v1/posts", asPk(t, "203.0.113.62"));
    expect(other.res.status).toBe(200);
    expect(storageOf(other.hops)).toEqual(NO_HOPS);
  });

  it("writes keep the exact bucket of the key's Durable Object", async () => {
    const t = await tenant();
    const write = await counted("POST", "/v1/posts", { key: t.ck, body: { title: "Counted" } });
    expect(write.res.status, write.text).toBe(201);
    expect(write.hops.durableObject).toBe(1);
    expect(write.res.headers.get("ratelimit")).toMatch(/^"writes";r=59;t=\d+$/);
  });
});
