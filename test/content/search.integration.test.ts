/**
 * Search (issue 22): FTS5 over title, summary and the body's text, in one language, ranked (title first),
 * keyset paged; pk_ keys find public posts only; the index follows every write (triggers).
 */
import { describe, expect, it } from "vitest";
import { call, createKey, createPost, ORIGIN, paragraph, problem, tenant } from "../support/content-helpers";

interface Page {
  items: { id: string; title: string; status?: string; language: string }[];
  next_cursor: string | null;
}

async function find(key: string, query: string, origin?: string): Promise<Page> {
  const res = await call("GET", `/v1/search?${query}`, { key, ...(origin ? { origin } : {}) });
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

describe("GET /v1/search", () => {
  it("finds words in the body text, ranks a title match first, and follows edits", async () => {
    const t = await tenant();
    const body = await createPost(t.ck, {
      title: "Gardening notes",
      status: "published",
      blocks_json: paragraph("The <b>zucchini</b> harvest was large"),
    });
    const title = await createPost(t.ck, { title: "Zucchini bread", status: "published" });
    const summary = await createPost(t.ck, {
      title: "Kitchen",
      summary: "with zucchini",
      status: "published",
    });
    const found = await find(t.pk, "q=zucchini", ORIGIN);
    expect(found.items.map((i) => i.id)).toEqual([title.id, summary.id, body.id]);
    expect(found.items[0]).not.toHaveProperty("status");
    // Prefix and diacritics-insensitive.
    expect((await find(t.ck, "q=zucch")).items).toHaveLength(3);
    await call("PATCH", `/v1/posts/${body.id}`, {
      key: t.ck,
      body: { blocks_json: paragraph("only tomatoes") },
    });
    expect((await find(t.ck, "q=zucchini")).items.map((i) => i.id)).not.toContain(body.id);
    expect((await find(t.ck, "q=tomatoes")).items.map((i) => i.id)).toEqual([body.id]);
  });

  it("pk_ keys find public posts only; a ck_ key with posts:write finds drafts too (no-store); never another site's", async () => {
    const t = await tenant();
    const other = await tenant();
    const live = await createPost(t.ck, { title: "Walrus live", status: "published" });
    const draft = await createPost(t.ck, { title: "Walrus draft" });
    await createPost(other.ck, { title: "Walrus elsewhere", status: "published" });
    const pub = await call("GET", "/v1/search?q=walrus", { key: t.pk, origin: ORIGIN });
    expect(pub.headers.get("cache-control")).toContain("public");
    expect(((await pub.json()) as Page).items.map((i) => i.id)).toEqual([live.id]);
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    expect((await find(reader.key, "q=walrus")).items.map((i) => i.id)).toEqual([live.id]);
    const all = await call("GET", "/v1/search?q=walrus", { key: t.ck });
    expect(all.headers.get("cache-control")).toBe("private, no-store");
    const items = ((await all.json()) as Page).items;
    expect(items.map((i) => i.id).sort()).toEqual([live.id, draft.id].sort());
    expect(items.find((i) => i.id === draft.id)!.status).toBe("draft");
  });

  it("searches one language: the site's default unless ?language=", async () => {
    const t = await tenant();
    const en = await createPost(t.ck, { title: "Octopus", status: "published" });
    const pt = await createPost(t.ck, { title: "Octopus polvo", language: "pt", status: "published" });
    expect((await find(t.pk, "q=octopus", ORIGIN)).items.map((i) => i.id)).toEqual([en.id]);
    expect((await find(t.pk, "q=octopus&language=pt", ORIGIN)).items.map((i) => i.id)).toEqual([pt.id]);
    const bad = await call("GET", "/v1/search?q=octopus&language=%%", { key: t.ck });
    expect(bad.status).toBe(400);
  });

  it("pages by cursor without repeats; a cursor of another query, a corrupt one, a bad limit and no words are 400", async () => {
    const t = await tenant();
    for (let i = 0; i < 5; i++) await createPost(t.ck, { title: `Narwhal ${i}`, status: "published" });
    const first = await find(t.pk, "q=narwhal&limit=2", ORIGIN);
    const second = await find(t.pk, `q=narwhal&limit=2&cursor=${first.next_cursor}`, ORIGIN);
    const third = await find(t.pk, `q=narwhal&limit=2&cursor=${second.next_cursor}`, ORIGIN);
    const ids = [...first.items, ...second.items, ...third.items].map((i) => i.id);
    expect(new Set(ids).size).toBe(5);
    expect(third.next_cursor).toBeNull();
    const replay = await call("GET", `/v1/search?q=other&cursor=${first.next_cursor}`, {
      key: t.pk,
      origin: ORIGIN,
    });
    expect((await problem(replay)).code).toBe("INVALID_CURSOR");
    const corrupt = await call("GET", "/v1/search?q=narwhal&cursor=abc", { key: t.ck });
    expect((await problem(corrupt)).code).toBe("INVALID_CURSOR");
    for (const q of ["q=narwhal&limit=0", "q=narwhal&limit=51"]) {
      expect((await problem(await call("GET", `/v1/search?${q}`, { key: t.ck }))).code).toBe("INVALID_LIMIT");
    }
    for (const q of ["", "q=", "q=%22*%20-%20!"]) {
      expect((await problem(await call("GET", `/v1/search?${q}`, { key: t.ck }))).code).toBe("BAD_REQUEST");
    }
  });

  it("needs posts:read; a pk_ key from another origin is 403; no key is 401", async () => {
    const t = await tenant();
    const writer = await createKey(t.site, { scopes: ["posts:write"] });
    expect((await problem(await call("GET", "/v1/search?q=x", { key: writer.key }))).code).toBe(
      "INSUFFICIENT_SCOPE",
    );
    const foreign = await call("GET", "/v1/search?q=x", { key: t.pk, origin: "https://evil.example" });
    expect((await problem(foreign)).code).toBe("ORIGIN_NOT_ALLOWED");
    expect((await call("GET", "/v1/search?q=x")).status).toBe(401);
  });
});
