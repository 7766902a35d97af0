import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  content,
  createKey,
  createPost,
  ORIGIN,
  type PostOut,
  problem,
  tenant,
} from "../support/content-helpers";

interface Page {
  items: { id: string; slug: string; published_at: string; status?: string; [k: string]: unknown }[];
  next_cursor: string | null;
}

async function page(key: string, query: string, extra: { origin?: string } = {}): Promise<Page> {
  const res = await call("GET", `/v1/posts${query}`, { key, ...extra });
  expect(res.status, `${query}: ${res.status}`).toBe(200);
  return (await res.json()) as Page;
}

async function all(key: string, query: string, limit = 50): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? "&" : "?";
    const p = await page(
      key,
      `${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    ids.push(...p.items.map((i) => i.id));
    cursor = p.next_cursor;
  } while (cursor);
  return ids;
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

describe("GET /v1/posts: limit and cursor", () => {
  it("limit outside 1..50 is 400 INVALID_LIMIT, never clamped; 1 and 50 are accepted", async () => {
    const t = await tenant();
    for (const bad of [
      "0",
      "51",
      "-1",
      "abc",
      "1.5",
      "",
      "100000",
      "1e1",
      "+5",
      "%205",
      "5%20",
      "0x10",
      "1,2",
      "Infinity",
    ]) {
      const res = await call("GET", `/v1/posts?limit=${bad}`, { key: t.ck });
      expect(res.status, bad).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_LIMIT");
    }
    for (const good of ["1", "50"])
      expect((await call("GET", `/v1/posts?limit=${good}`, { key: t.ck })).status).toBe(200);
  });

  it("a corrupt, tampered or foreign cursor is 400 INVALID_CURSOR", async () => {
    const t = await tenant();
    for (let i = 0; i < 3; i++)
      await createPost(t.ck, { title: `P${i}`, status: "published", published_at: minutesAgo(i + 1) });
    const first = await page(t.ck, "?limit=1");
    const cursor = first.next_cursor!;
    expect(cursor).toBeTruthy();
    const [body, mac] = cursor.split(".");
    const payload = JSON.parse(atob(body!.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, string>;
    const forged = btoa(JSON.stringify({ ...payload, p: "2999-01-01T00:00:00.000Z" }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    for (const bad of [
      "garbage",
      `${body}.AAAAAAAAAAAAAAAAAAAAAA`,
      `${forged}.${mac}`,
      `${cursor}x`,
      ".",
      "",
    ]) {
      const res = await call("GET", `/v1/posts?limit=1&cursor=${encodeURIComponent(bad)}`, { key: t.ck });
      expect(res.status, bad).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_CURSOR");
    }
    // A cursor belongs to its listing: another filter set refuses it.
    const other = await call("GET", `/v1/posts?limit=1&language=pt&cursor=${encodeURIComponent(cursor)}`, {
      key: t.ck,
    });
    expect(other.status).toBe(400);
    // A cursor of another site's listing is refused too (the fingerprint includes the site), even with the
    // same filters, and with the other site's public key.
    const b = await tenant();
    await createPost(b.ck, { title: "B", status: "published", published_at: minutesAgo(10) });
    for (const [key, origin] of [
      [b.ck, undefined],
      [b.pk, ORIGIN],
    ] as const) {
      const foreign = await call("GET", `/v1/posts?limit=1&cursor=${encodeURIComponent(cursor)}`, {
        key,
        origin,
      });
      expect(foreign.status).toBe(400);
      expect((await problem(foreign)).code).toBe("INVALID_CURSOR");
    }
    // Another key of the same site shares the listing, so it may continue the paging.
    const sameSite = await call("GET", `/v1/posts?limit=1&cursor=${encodeURIComponent(cursor)}`, {
      key: t.pk,
      origin: ORIGIN,
    });
    expect(sameSite.status).toBe(200);
  });

  it("keyset pages cover every public post exactly once, newest first, ties on published_at broken by id", async () => {
    const t = await tenant();
    const tie = minutesAgo(30);
    const made: PostOut[] = [];
    for (let i = 0; i < 23; i++) {
      made.push(
        await createPost(t.ck, {
          title: `Post ${i}`,
          status: "published",
          published_at: i % 3 === 0 ? tie : minutesAgo(i + 1),
        }),
      );
    }
    for (const limit of [1, 4, 7, 50]) {
      const ids = await all(t.ck, "", limit);
      expect(ids).toHaveLength(23);
      expect(new Set(ids).size).toBe(23);
    }
    const firstPage = await page(t.ck, "?limit=50");
    const keys = firstPage.items.map((i) => `${i.published_at}|${i.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it("posts inserted between page fetches never cause a duplicate or a miss of the original posts", async () => {
    const t = await tenant();
    const original: string[] = [];
    for (let i = 0; i < 12; i++) {
      original.push(
        (await createPost(t.ck, { title: `O${i}`, status: "published", published_at: minutesAgo(100 + i) }))
          .id,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const p = await page(t.ck, `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...p.items.map((i) => i.id));
      cursor = p.next_cursor;
      // Between pages: a brand-new post (newer than everything) and one dated inside the already-read range.
      await createPost(t.ck, { title: `New ${round}`, status: "published" });
      await createPost(t.ck, {
        title: `Old ${round}`,
        status: "published",
        published_at: minutesAgo(100 + round * 5 - 0.5),
      });
      round++;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of original) expect(seen.filter((s) => s === id)).toHaveLength(1);
  });
});

describe("GET /v1/posts: filters", () => {
  it("category and tag: comma-separated means ANY", async () => {
    const t = await tenant();
    const a = await createPost(t.ck, {
      title: "A",
      status: "published",
      category_slugs: ["news"],
      tag_slugs: ["x"],
    });
    const b = await createPost(t.ck, {
      title: "B",
      status: "published",
      category_slugs: ["sport"],
      tag_slugs: ["y"],
    });
    await createPost(t.ck, { title: "C", status: "published", category_slugs: ["food"] });
    const ids = async (q: string) => (await page(t.ck, q)).items.map((i) => i.id).sort();
    expect(await ids("?category=news")).toEqual([a.id]);
    expect(await ids("?category=news,sport")).toEqual([a.id, b.id].sort());
    expect(await ids("?tag=y")).toEqual([b.id]);
    expect(await ids("?tag=x,y")).toEqual([a.id, b.id].sort());
    expect(await ids("?category=news&tag=y")).toEqual([]);
    expect((await call("GET", "/v1/posts?category=Not%20A%20Slug", { key: t.ck })).status).toBe(400);
  });

  it("q searches title and summary (FTS5), not the body, and tolerates FTS syntax", async () => {
    const t = await tenant();
    const a = await createPost(t.ck, { title: "Bananas are yellow", status: "published" });
    const b = await createPost(t.ck, { title: "Fruit", summary: "all about bananas", status: "published" });
    await createPost(t.ck, {
      title: "Other",
      status: "published",
      blocks_json: { blocks: [{ type: "paragraph", data: { text: "bananas in the body" } }] },
    });
    await createPost(t.ck, { title: "Bananas draft", status: "draft" });
    const ids = async (q: string) =>
      (await page(t.ck, `?q=${encodeURIComponent(q)}`)).items.map((i) => i.id).sort();
    expect(await ids("bananas")).toEqual([a.id, b.id].sort());
    expect(await ids("banan")).toEqual([a.id, b.id].sort());
    expect(await ids("yellow bananas")).toEqual([a.id]);
    for (const q of [
      '"unbalanced',
      "NEAR(a b)",
      "a OR",
      "*",
      "title:x",
      "-bananas",
      "bana\u0000nas",
      "\u0000",
      "a\u0001\u001fb",
      "'; DROP TABLE posts; --",
      "{title summary}: x",
      "^banan",
      "x + y ~ z",
      "AND OR NOT",
      "\\",
      "ˆ ʹ ㅤ",
      "é́́",
      "🍌",
      "a".repeat(200),
    ]) {
      const res = await call("GET", `/v1/posts?q=${encodeURIComponent(q)}`, { key: t.ck });
      expect(res.status, JSON.stringify(q)).toBe(200);
      await res.arrayBuffer();
    }
    // A NUL separates terms like any other non-letter.
    expect(await ids("yel\u0000bananas")).toEqual([a.id]);
    const long = await call("GET", `/v1/posts?q=${"a".repeat(201)}`, { key: t.ck });
    expect(long.status).toBe(400);
    await problem(long);
  });

  it("since keeps posts with updated_at >= since; a bad timestamp is 400", async () => {
    const t = await tenant();
    const old = await createPost(t.ck, { title: "Old", status: "published" });
    await new Promise((r) => setTimeout(r, 20));
    const mark = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const fresh = await createPost(t.ck, { title: "Fresh", status: "published" });
    expect((await page(t.ck, `?since=${encodeURIComponent(mark)}`)).items.map((i) => i.id)).toEqual([
      fresh.id,
    ]);
    await call("PATCH", `/v1/posts/${old.id}`, { key: t.ck, body: { summary: "touched" } });
    expect((await page(t.ck, `?since=${encodeURIComponent(mark)}`)).items.map((i) => i.id).sort()).toEqual(
      [old.id, fresh.id].sort(),
    );
    expect((await call("GET", "/v1/posts?since=yesterday", { key: t.ck })).status).toBe(400);
  });

  it("since is inclusive (updated_at equal to since is kept), in any RFC 3339 offset", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Edge", status: "published" });
    const src = (await (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).json()) as {
      updated_at: string;
    };
    const at = src.updated_at;
    const ids = async (since: string) =>
      (await page(t.ck, `?since=${encodeURIComponent(since)}`)).items.map((i) => i.id);
    expect(await ids(at)).toEqual([post.id]);
    // The same instant written with an offset.
    const ms = Date.parse(at);
    const shifted = new Date(ms + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    expect(await ids(shifted)).toEqual([post.id]);
    expect(await ids(new Date(ms + 1).toISOString())).toEqual([]);
    for (const bad of ["2024-01-01", "2024-01-01T00:00:00", "1700000000", "2024-13-01T00:00:00Z", ""]) {
      const res = await call("GET", `/v1/posts?since=${encodeURIComponent(bad)}`, { key: t.ck });
      expect(res.status, bad).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_SINCE");
    }
  });

  it("language and author narrow the listing", async () => {
    const t = await tenant();
    const ana = await createKey(t.site, { scopes: ["posts:write"], name: "Ana" });
    const en = await createPost(ana.key, { title: "En", status: "published" });
    const pt = await createPost(t.ck, { title: "Pt", status: "published", language: "pt-BR" });
    expect((await page(t.ck, "?language=pt-BR")).items.map((i) => i.id)).toEqual([pt.id]);
    expect((await page(t.ck, "?language=en")).items.map((i) => i.id)).toEqual([en.id]);
    expect((await page(t.ck, "?author=ana")).items.map((i) => i.id)).toEqual([en.id]);
    expect((await call("GET", "/v1/posts?language=!!", { key: t.ck })).status).toBe(400);
  });

  it("post_type narrows within public types; a private type is never listed; a malformed slug is 400", async () => {
    const t = await tenant();
    await content.definePostType({ site_id: t.site.id, slug: "internal", name: "Internal", public: false });
    const post = await createPost(t.ck, { title: "Post", status: "published" });
    const pageRow = await createPost(t.ck, { title: "Page", status: "published", post_type: "page" });
    await createPost(t.ck, { title: "Secret", status: "published", post_type: "internal" });
    expect((await page(t.ck, "")).items.map((i) => i.id).sort()).toEqual([post.id, pageRow.id].sort());
    expect((await page(t.ck, "?post_type=page")).items.map((i) => i.id)).toEqual([pageRow.id]);
    expect((await page(t.ck, "?post_type=internal")).items).toEqual([]);
    const bad = await call("GET", "/v1/posts?post_type=Bad%20Type", { key: t.ck });
    expect(bad.status).toBe(400);
    expect((await problem(bad)).code).toBe("INVALID_POST_TYPE");
  });

  it("visibility: drafts, future-scheduled, restricted, archived and deleted posts are never listed publicly", async () => {
    const t = await tenant();
    const visible = await createPost(t.ck, { title: "Visible", status: "published" });
    await createPost(t.ck, { title: "Draft" });
    await createPost(t.ck, {
      title: "Later",
      status: "scheduled",
      published_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    await createPost(t.ck, { title: "Restricted", status: "published", access: "restricted" });
    await createPost(t.ck, { title: "Archived", status: "archived" });
    const deleted = await createPost(t.ck, { title: "Deleted", status: "published" });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET status = 'deleted' WHERE id = ?")
      .bind(deleted.id)
      .run();
    expect((await page(t.pk, "", { origin: ORIGIN })).items.map((i) => i.id)).toEqual([visible.id]);
    const statusAll = await page(t.ck, "?status=draft,scheduled,published,archived");
    expect(statusAll.items).toHaveLength(5);
    expect(statusAll.items.map((i) => i.id)).not.toContain(deleted.id);
  });

  it("a scheduled post becomes public when its time comes, without any job", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Soon",
      status: "scheduled",
      published_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect((await page(t.ck, "")).items).toEqual([]);
    // A minute after its time on the read path's clock: public, with no job run (and no cached answer kept).
    setClockForTests(() => Date.parse(post.published_at!) + 60_000);
    try {
      expect((await page(t.ck, "")).items.map((i) => i.id)).toEqual([post.id]);
    } finally {
      setClockForTests(null);
    }
    // The status listing reads the real clock: the post's time is moved back instead.
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE posts SET published_at = ? WHERE id = ?")
      .bind(minutesAgo(1), post.id)
      .run();
    expect((await page(t.ck, "?status=published")).items.map((i) => i.status)).toEqual(["published"]);
  });

  it("other sites' posts never appear", async () => {
    const a = await tenant();
    const b = await tenant();
    await createPost(b.ck, { title: "B's", status: "published" });
    const mine = await createPost(a.ck, { title: "A's", status: "published" });
    expect((await page(a.ck, "")).items.map((i) => i.id)).toEqual([mine.id]);
    expect((await page(a.ck, "?status=published,draft")).items.map((i) => i.id)).toEqual([mine.id]);
  });
});

describe("GET /v1/posts: status (authenticated listing)", () => {
  it("ck_ with posts:write gets PostSummary items of the asked statuses, private, no-store, no ETag", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Draft" });
    const pub = await createPost(t.ck, { title: "Pub", status: "published" });
    const res = await call("GET", "/v1/posts?status=draft", { key: t.ck });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("etag")).toBeNull();
    const body = (await res.json()) as Page;
    expect(body.items.map((i) => i.id)).toEqual([draft.id]);
    expect(body.items[0]).toMatchObject({ status: "draft", access: "public" });
    expect(body.items[0]).toHaveProperty("created_at");
    expect((await page(t.ck, "?status=draft,published")).items.map((i) => i.id)).toEqual([pub.id, draft.id]);
    const withInm = await call("GET", "/v1/posts?status=draft", {
      key: t.ck,
      headers: { "if-none-match": "*" },
    });
    expect(withInm.status).toBe(200);
  });

  it("pages through the authenticated listing with its own cursor", async () => {
    const t = await tenant();
    for (let i = 0; i < 7; i++) await createPost(t.ck, { title: `D${i}` });
    const ids = await all(t.ck, "?status=draft", 3);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
    const publicCursor = (await page(t.ck, "?limit=1")).next_cursor;
    expect(publicCursor).toBeNull();
  });

  it("a pk_ key gets 403 and never content; a ck_ key without posts:write gets 403", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "Draft" });
    const pk = await call("GET", "/v1/posts?status=draft", { key: t.pk, origin: ORIGIN });
    expect(pk.status).toBe(403);
    expect(await pk.text()).not.toContain("Draft");
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    expect((await call("GET", "/v1/posts?status=draft", { key: reader.key })).status).toBe(403);
  });

  it("deleted, unknown or empty status is 400 INVALID_STATUS", async () => {
    const t = await tenant();
    for (const s of ["deleted", "draft,deleted", "live", "", "DRAFT"]) {
      const res = await call("GET", `/v1/posts?status=${s}`, { key: t.ck });
      expect(res.status, s).toBe(400);
      expect((await problem(res)).code).toBe("INVALID_STATUS");
    }
  });
});

describe("GET /v1/posts: caching", () => {
  it("public answers carry an ETag and answer 304 to If-None-Match; a change makes a new ETag", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "One", status: "published" });
    const first = await call("GET", "/v1/posts", { key: t.pk, origin: ORIGIN });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).toContain("public");
    const again = await call("GET", "/v1/posts", {
      key: t.pk,
      origin: ORIGIN,
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    await createPost(t.ck, { title: "Two", status: "published" });
    const changed = await call("GET", "/v1/posts", {
      key: t.pk,
      origin: ORIGIN,
      headers: { "if-none-match": etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });
});
