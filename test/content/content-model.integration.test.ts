/**
 * Issue 22 part A in the content worker: races and rules the gateway tests do not reach. Of 50 concurrent
 * deletes of one post exactly one wins (one post.deleted, one purge); a key without authorship context
 * can write a post that names its author; renaming an author renames its posts' byline in one batch;
 * a renamed key persona stays its key's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  problem,
  recordedEffects,
  tenant,
} from "../support/content-helpers";

/** The events arrive through the content-events queue: poll briefly. */
async function deletedEvents(siteId: string, expected: number) {
  let events: Record<string, unknown>[] = [];
  for (let i = 0; i < 50 && events.length < expected; i++) {
    await new Promise((r) => setTimeout(r, 100));
    events = await recordedEffects(siteId, "event:post.deleted");
  }
  return events;
}

describe("DELETE /v1/posts/{reference}", () => {
  it("50 concurrent deletes: one 204, the rest 404; one post.deleted and one purge; the row kept, its slug freed", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Race", slug: "race", status: "published" });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => call("DELETE", `/v1/posts/${post.id}`, { key: t.ck })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(49);
    const deleted = await deletedEvents(t.site.id, 1);
    // A moment more: a second event would have arrived by now.
    await new Promise((r) => setTimeout(r, 300));
    expect(await recordedEffects(t.site.id, "event:post.deleted")).toHaveLength(1);
    expect(deleted[0]).toMatchObject({
      type: "post.deleted",
      slug: "race",
      status: "deleted",
      post_id: post.id,
    });
    expect(await recordedEffects(t.site.id, "cache_purge")).toEqual([
      { urls: [`https://${t.site.primary_domain}/race`] },
    ]);
    const row = await (await contentDbOf(t.site.id))
      .prepare("SELECT status, slug FROM posts WHERE id = ?")
      .bind(post.id)
      .first<{ status: string; slug: string }>();
    expect(row).toEqual({ status: "deleted", slug: `race--deleted-${post.id.toLowerCase()}` });
  });

  it("a draft is deleted too (post.deleted, no public page to purge but the URL it would have is purged)", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Draft" });
    expect((await call("DELETE", `/v1/posts/${draft.id}`, { key: t.ck })).status).toBe(204);
    expect(await deletedEvents(t.site.id, 1)).toMatchObject([{ post_id: draft.id }]);
    expect(await recordedEffects(t.site.id, "cache_purge")).toHaveLength(1);
    expect((await call("GET", `/v1/posts/${draft.id}/source`, { key: t.ck })).status).toBe(404);
  });

  it("an archived post is deleted by id, not by slug (as PATCH resolves)", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Old", slug: "old", status: "published" });
    await call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck });
    const bySlug = await call("DELETE", "/v1/posts/old", { key: t.ck });
    expect(bySlug.status).toBe(404);
    expect((await problem(bySlug)).code).toBe("NOT_FOUND");
    expect((await call("DELETE", `/v1/posts/${post.id}`, { key: t.ck })).status).toBe(204);
  });
});

describe("authors and authorship", () => {
  it("a key without authorship context creates a post naming an author; without one it stays 422", async () => {
    const t = await tenant();
    const author = await call("POST", "/v1/authors", { key: t.ck, body: { name: "Guest Writer" } });
    expect(author.status).toBe(201);
    const legacy = await createKey(t.site, { scopes: ["posts:write"] });
    await (await contentDbOf(t.site.id))
      .prepare("UPDATE api_keys SET author_name = NULL WHERE id = ?")
      .bind(legacy.id)
      .run();
    const named = await call("POST", "/v1/posts", {
      key: legacy.key,
      body: { title: "By a guest", author_slug: "guest-writer" },
    });
    expect(named.status).toBe(201);
    expect(((await named.json()) as { author: unknown }).author).toEqual({
      slug: "guest-writer",
      display_name: "Guest Writer",
    });
    const unnamed = await call("POST", "/v1/posts", { key: legacy.key, body: { title: "Nobody" } });
    expect((await problem(unnamed)).code).toBe("NO_AUTHORSHIP_CONTEXT");
    const unknown = await call("POST", "/v1/posts", {
      key: legacy.key,
      body: { title: "Nobody", author_slug: "not-here" },
    });
    expect((await problem(unknown)).code).toBe("UNKNOWN_AUTHOR");
  });

  it("a renamed key persona stays its key's: the key's next post is by the renamed author", async () => {
    const t = await tenant();
    const first = (await createPost(t.ck, { title: "One", status: "published" })) as unknown as {
      author: { slug: string };
    };
    const slug = first.author.slug;
    const renamed = await call("PATCH", `/v1/authors/${slug}`, {
      key: t.ck,
      body: { name: "Pen Name", slug: "pen-name" },
    });
    expect(renamed.status).toBe(200);
    const second = (await createPost(t.ck, { title: "Two" })) as unknown as { author: unknown };
    expect(second.author).toEqual({ slug: "pen-name", display_name: "Pen Name" });
    const { results } = await (await contentDbOf(t.site.id))
      .prepare("SELECT slug FROM author_personas WHERE site_id = ?")
      .bind(t.site.id)
      .all<{ slug: string }>();
    expect(results.map((r) => r.slug)).toEqual(["pen-name"]);
  });

  it("20 concurrent creations of one explicit slug: one 201, the rest 409 SLUG_TAKEN", async () => {
    const t = await tenant();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("POST", "/v1/authors", { key: t.ck, body: { name: `N${i}`, slug: "same" } }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect((await problem(a)).code).toBe("SLUG_TAKEN");
    }
  });

  it("another site's author is invisible to the list (ck_ and pk_)", async () => {
    const a = await tenant();
    const b = await makeSite();
    const bKey = await createKey(b, { scopes: ["posts:write"] });
    await call("POST", "/v1/authors", { key: bKey.key, body: { name: "Other Site" } });
    for (const who of [{ key: a.ck }, { key: a.pk, origin: ORIGIN }]) {
      const res = await call("GET", "/v1/authors", who);
      expect(res.status).toBe(200);
      const items = ((await res.json()) as { items: { slug: string }[] }).items;
      expect(items.map((i) => i.slug)).not.toContain("other-site");
    }
  });

  it("account.deleted also erases a persona's context name and profile; the key's next post is by the same renamed persona", async () => {
    const t = await tenant();
    const first = (await createPost(t.ck, { title: "One" })) as unknown as { author: { slug: string } };
    await call("PATCH", `/v1/authors/${first.author.slug}`, { key: t.ck, body: { bio: "About me" } });
    const db = await contentDbOf(t.site.id);
    const key = await db
      .prepare("SELECT created_by FROM api_keys WHERE site_id = ? AND kind = 'secret'")
      .bind(t.site.id)
      .first<{ created_by: string }>();
    const queue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;
    await queue.send({ type: "account.deleted", user_id: key!.created_by, at: new Date().toISOString() });
    const read = () =>
      db
        .prepare("SELECT slug, display_name, context_name, bio FROM author_personas WHERE site_id = ?")
        .bind(t.site.id)
        .all<{ slug: string; display_name: string; context_name: string | null; bio: string | null }>();
    let rows = (await read()).results;
    for (let i = 0; i < 100 && rows[0]?.display_name !== "Former author"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = (await read()).results;
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      display_name: "Former author",
      context_name: "Former author",
      bio: null,
    });
    const next = (await createPost(t.ck, { title: "Two" })) as unknown as { author: { slug: string } };
    expect(next.author.slug).toBe(rows[0]!.slug);
    expect((await read()).results).toHaveLength(1);
  });
});
