import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  ownerHeaders,
  problem,
  staffHeaders,
} from "../support/content-helpers";

const WRITE = ["posts:write", "posts:read"];

interface Item {
  id: string;
  slug: string;
  author: { slug: string; display_name: string } | null;
}

async function keyOf(
  site: Awaited<ReturnType<typeof makeSite>>,
  body: Record<string, unknown>,
  headers = ownerHeaders(site),
) {
  const res = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
    headers,
    body: { kind: "secret", scopes: WRITE, ...body },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string; author: { display_name: string } };
}

async function listAuthor(key: string, author: string): Promise<Item[]> {
  const res = await call("GET", `/v1/posts?author=${author}`, { key });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Item[] }).items;
}

describe("author personas", () => {
  it("a key stores its creator's authorship context; its posts carry the key's persona", async () => {
    const site = await makeSite();
    const key = await keyOf(site, { name: "Autoposter", author_name: "Ana Souza" });
    expect(key.author).toEqual({ display_name: "Ana Souza" });
    const row = await (await contentDbOf(site.id))
      .prepare("SELECT created_by, author_name FROM api_keys WHERE id = ?")
      .bind(key.id)
      .first<{ created_by: string; author_name: string }>();
    expect(row).toEqual({ created_by: `user-${site.id}`, author_name: "Ana Souza" });

    const post = await createPost(key.key, { title: "Hello", status: "published" });
    expect(post.author).toEqual({ slug: "ana-souza", display_name: "Ana Souza" });
    const items = await listAuthor(key.key, "ana-souza");
    expect(items.map((i) => i.id)).toEqual([post.id]);
    expect(items[0]!.author).toEqual({ slug: "ana-souza", display_name: "Ana Souza" });
    expect(await listAuthor(key.key, "someone-else")).toEqual([]);
  });

  it("without author_name the persona is named after the key; one persona per context, reused", async () => {
    const site = await makeSite();
    const a = await keyOf(site, { name: "Newsroom Bot" });
    const b = await keyOf(site, { name: "Newsroom Bot" });
    const p1 = await createPost(a.key, { title: "One" });
    const p2 = await createPost(b.key, { title: "Two" });
    expect(p1.author).toEqual({ slug: "newsroom-bot", display_name: "Newsroom Bot" });
    expect(p2.author).toEqual(p1.author);
    const n = await (await contentDbOf(site.id))
      .prepare("SELECT count(*) AS n FROM author_personas WHERE site_id = ?")
      .bind(site.id)
      .first<{ n: number }>();
    expect(n!.n).toBe(1);
  });

  it("the persona slug is unique per site: another user with the same name gets -2", async () => {
    const site = await makeSite();
    const first = await keyOf(site, { name: "k", author_name: "Editor" });
    const otherUser = staffHeaders("user-other", { org: [{ org_id: site.org_id, role: "org_owner" }] });
    const second = await keyOf(site, { name: "k", author_name: "Editor" }, otherUser);
    expect((await createPost(first.key, { title: "A" })).author).toEqual({
      slug: "editor",
      display_name: "Editor",
    });
    expect((await createPost(second.key, { title: "B" })).author).toEqual({
      slug: "editor-2",
      display_name: "Editor",
    });
    // Another site has its own personas: the same context there is plain `editor`.
    const elsewhere = await makeSite();
    const k3 = await keyOf(elsewhere, { name: "k", author_name: "Editor" });
    expect(((await createPost(k3.key, { title: "C" })).author as { slug: string }).slug).toBe("editor");
  });

  it("concurrent first posts of one context make exactly one persona", async () => {
    const site = await makeSite();
    const key = await keyOf(site, { name: "k", author_name: "Racer" });
    const posts = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createPost(key.key, { title: `Race ${i}` })),
    );
    expect(new Set(posts.map((p) => (p.author as { slug: string }).slug))).toEqual(new Set(["racer"]));
    const n = await (await contentDbOf(site.id))
      .prepare("SELECT count(*) AS n FROM author_personas WHERE site_id = ?")
      .bind(site.id)
      .first<{ n: number }>();
    expect(n!.n).toBe(1);
  });

  it("author_slug picks an existing persona of the site, on create and on PATCH", async () => {
    const site = await makeSite();
    const ana = await keyOf(site, { name: "k", author_name: "Ana" });
    const bot = await keyOf(site, { name: "k", author_name: "Bot" });
    await createPost(ana.key, { title: "Seed" }); // makes the persona `ana`
    const post = await createPost(bot.key, { title: "Ghost", author_slug: "ana", status: "published" });
    expect(post.author).toEqual({ slug: "ana", display_name: "Ana" });
    await createPost(bot.key, { title: "Own" });
    const res = await call("PATCH", `/v1/posts/${post.id}`, { key: ana.key, body: { author_slug: "bot" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Item).author).toEqual({ slug: "bot", display_name: "Bot" });
    expect((await listAuthor(ana.key, "bot")).map((i) => i.id)).toEqual([post.id]);
  });

  it("an unknown author_slug (or another site's persona) is 422 UNKNOWN_AUTHOR; nothing is written", async () => {
    const site = await makeSite();
    const key = await keyOf(site, { name: "k", author_name: "Ana" });
    const other = await makeSite();
    const otherKey = await keyOf(other, { name: "k", author_name: "Zed" });
    await createPost(otherKey.key, { title: "Z" });
    for (const slug of ["nobody", "zed"]) {
      const res = await call("POST", "/v1/posts", { key: key.key, body: { title: "X", author_slug: slug } });
      expect(res.status).toBe(422);
      expect((await problem(res)).code).toBe("UNKNOWN_AUTHOR");
    }
    const post = await createPost(key.key, { title: "Y" });
    const patch = await call("PATCH", `/v1/posts/${post.id}`, { key: key.key, body: { author_slug: "zed" } });
    expect(patch.status).toBe(422);
    expect((await problem(patch)).code).toBe("UNKNOWN_AUTHOR");
    const cleared = await call("PATCH", `/v1/posts/${post.id}`, {
      key: key.key,
      body: { author_slug: null },
    });
    expect(cleared.status).toBe(400);
    expect((await problem(cleared)).code).toBe("INVALID_AUTHOR");
  });

  it("a key created before authorship context was recorded gets 422 NO_AUTHORSHIP_CONTEXT", async () => {
    const site = await makeSite();
    const key = await keyOf(site, { name: "k" });
    await (await contentDbOf(site.id))
      .prepare("UPDATE api_keys SET author_name = NULL WHERE id = ?")
      .bind(key.id)
      .run();
    const res = await call("POST", "/v1/posts", { key: key.key, body: { title: "Old" } });
    expect(res.status).toBe(422);
    expect((await problem(res)).code).toBe("NO_AUTHORSHIP_CONTEXT");
  });

  it("a public key's listing filters by author too", async () => {
    const site = await makeSite();
    const ck = await keyOf(site, { name: "k", author_name: "Ana" });
    const pk = await createKey(site, { kind: "public", scopes: ["posts:read"] });
    const post = await createPost(ck.key, { title: "Pub", status: "published" });
    const res = await call("GET", "/v1/posts?author=ana", { key: pk.key, origin: ORIGIN });
    expect(((await res.json()) as { items: Item[] }).items.map((i) => i.id)).toEqual([post.id]);
  });
});
