/**
 * Post revisions (issue 22): every change of title, summary, body or SEO keeps one (the newest 50), the
 * list is newest first and keyset paged, and a restore writes a revision back under If-Match (412 when
 * stale, nothing changed), announces the change like PATCH, and is itself a revision.
 */
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import { call, createKey, createPost, ORIGIN, paragraph, problem, tenant } from "../support/content-helpers";

interface Revision {
  id: number;
  current: boolean;
  title: string;
  summary: string | null;
  blocks_json: { blocks: { data: { text: string } }[] } | null;
  seo: { meta_title: string | null };
}
interface Page {
  items: Revision[];
  next_cursor: string | null;
}

async function revisions(key: string, ref: string, query = ""): Promise<Page> {
  const res = await call("GET", `/v1/posts/${ref}/revisions${query}`, { key });
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("private, no-store");
  return (await res.json()) as Page;
}

describe("post revisions", () => {
  it("creation, a PATCH of title/summary/body and an SEO PATCH each keep a revision; other edits do not", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "One",
      summary: "s1",
      blocks_json: paragraph("first body"),
    });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Two" } });
    await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { blocks_json: paragraph("second body") },
    });
    await call("PATCH", `/v1/posts/${post.id}/seo`, { key: t.ck, body: { meta_title: "MT" } });
    // A status change alone changes no content: no revision.
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { status: "published" } });
    const page = await revisions(t.ck, post.id);
    expect(page.items.map((r) => r.title)).toEqual(["Two", "Two", "Two", "One"]);
    expect(page.items[0]!.seo.meta_title).toBe("MT");
    expect(page.items[0]!.current).toBe(true);
    expect(page.items.slice(1).every((r) => !r.current)).toBe(true);
    expect(page.items[2]!.blocks_json!.blocks[0]!.data.text).toBe("first body");
    const ids = page.items.map((r) => r.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  it("keeps the newest 50 and pages them by cursor; limit outside 1..50 and a corrupt cursor are 400", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "v0" });
    for (let i = 1; i <= 52; i++) {
      await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: `v${i}` } });
    }
    const stored = await (await contentDbOf(t.site.id))
      .prepare("SELECT count(*) AS n FROM post_revisions WHERE post_id = ?")
      .bind(post.id)
      .first<{ n: number }>();
    expect(stored!.n).toBe(50);
    const first = await revisions(t.ck, post.id, "?limit=30");
    expect(first.items).toHaveLength(30);
    expect(first.items[0]!.title).toBe("v52");
    const second = await revisions(t.ck, post.id, `?limit=30&cursor=${first.next_cursor}`);
    expect(second.items).toHaveLength(20);
    expect(second.items.at(-1)!.title).toBe("v3");
    expect(second.next_cursor).toBeNull();
    for (const q of ["?limit=0", "?limit=51", "?limit=x"]) {
      expect(
        (await problem(await call("GET", `/v1/posts/${post.id}/revisions${q}`, { key: t.ck }))).code,
      ).toBe("INVALID_LIMIT");
    }
    const bad = await call("GET", `/v1/posts/${post.id}/revisions?cursor=abc`, { key: t.ck });
    expect((await problem(bad)).code).toBe("INVALID_CURSOR");
  });

  it("restore writes the revision back (a new revision), with If-Match; a stale tag is 412 and nothing changes", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Original",
      summary: "orig",
      blocks_json: paragraph("old"),
    });
    await call("PATCH", `/v1/posts/${post.id}/seo`, { key: t.ck, body: { meta_title: "later" } });
    const edited = await call("PATCH", `/v1/posts/${post.id}`, {
      key: t.ck,
      body: { title: "Edited", blocks_json: paragraph("new") },
    });
    const etag = edited.headers.get("etag")!;
    const oldest = (await revisions(t.ck, post.id)).items.at(-1)!;
    expect(oldest.title).toBe("Original");

    const stale = await call("POST", `/v1/posts/${post.id}/revisions/${oldest.id}/restore`, {
      key: t.ck,
      headers: { "if-match": '"rev-0"' },
    });
    expect(stale.status).toBe(412);
    expect((await problem(stale)).code).toBe("PRECONDITION_FAILED");
    const unchanged = await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck });
    expect(((await unchanged.json()) as { title: string }).title).toBe("Edited");
    expect(unchanged.headers.get("etag")).toBe(etag);

    const res = await call("POST", `/v1/posts/${post.id}/revisions/${oldest.id}/restore`, {
      key: t.ck,
      headers: { "if-match": etag },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { title: string }).title).toBe("Original");
    const source = (await (await call("GET", `/v1/posts/${post.id}/source`, { key: t.ck })).json()) as {
      summary: string;
      blocks_json: { blocks: { data: { text: string } }[] };
    };
    expect(source.summary).toBe("orig");
    expect(source.blocks_json.blocks[0]!.data.text).toBe("old");
    const after = await revisions(t.ck, post.id);
    expect(after.items[0]).toMatchObject({ title: "Original", current: true });
    expect(after.items[0]!.seo.meta_title).toBeNull();
    expect(after.items[0]!.id).toBe(Number(res.headers.get("etag")!.match(/rev-(\d+)/)![1]));
  });

  it("a restore of a published post is what public reads show at once (the edge cache follows the write)", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Live", status: "published" });
    await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Live 2" } });
    const first = (await revisions(t.ck, post.id)).items.at(-1)!;
    const res = await call("POST", `/v1/posts/${post.id}/revisions/${first.id}/restore`, { key: t.ck });
    expect(res.status).toBe(200);
    const read = await call("GET", `/v1/posts/${post.id}`, { key: t.pk, origin: ORIGIN });
    expect(((await read.json()) as { title: string }).title).toBe("Live");
  });

  it("unknown revision, another site's post and a malformed id are the same 404; pk_ and scopes are refused", async () => {
    const t = await tenant();
    const other = await tenant();
    const post = await createPost(t.ck, { title: "Mine" });
    const missing = await call("POST", `/v1/posts/${post.id}/revisions/9999/restore`, { key: t.ck });
    expect(missing.status).toBe(404);
    const body = await missing.json();
    const bad = await call("POST", `/v1/posts/${post.id}/revisions/abc/restore`, { key: t.ck });
    expect(await bad.json()).toEqual(body);
    const foreign = await call("POST", `/v1/posts/${post.id}/revisions/0/restore`, { key: other.ck });
    expect(foreign.status).toBe(404);
    expect((await call("GET", `/v1/posts/${post.id}/revisions`, { key: other.ck })).status).toBe(404);
    const pk = await call("GET", `/v1/posts/${post.id}/revisions`, { key: t.pk, origin: ORIGIN });
    expect((await problem(pk)).code).toBe("SECRET_KEY_REQUIRED");
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    const scoped = await call("GET", `/v1/posts/${post.id}/revisions`, { key: reader.key });
    expect((await problem(scoped)).code).toBe("INSUFFICIENT_SCOPE");
    const restore = await call("POST", `/v1/posts/${post.id}/revisions/0/restore`, { key: reader.key });
    expect((await problem(restore)).code).toBe("INSUFFICIENT_SCOPE");
  });
});
