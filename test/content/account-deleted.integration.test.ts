/**
 * Identity's `account.deleted` (issue 24 §2) through the real queue, as identity's cron sends it: the
 * user's author personas and the posts they sign lose the person's name (each persona of a site its own
 * "Former author" byline), the keys the user created sign as "Former author", other users' personas stay,
 * and a redelivered message changes nothing more.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentDbOf } from "../support/content-groups";
import { createPost, tenant } from "../support/content-helpers";

const queue = (env as unknown as { TEST_SITE_TRANSFERRED: Queue }).TEST_SITE_TRANSFERRED;

async function personas(siteId: string) {
  const { results } = await (await contentDbOf(siteId))
    .prepare(
      "SELECT slug, display_name, user_id FROM author_personas WHERE site_id = ? ORDER BY display_name",
    )
    .bind(siteId)
    .all<{ slug: string; display_name: string; user_id: string }>();
  return results;
}

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("account.deleted", () => {
  it("takes the user's name out of personas, posts and keys, once", async () => {
    const t = await tenant();
    const first = await createPost(t.ck, { title: "By the key" });
    const key = await (await contentDbOf(t.site.id))
      .prepare("SELECT created_by FROM api_keys WHERE site_id = ? AND kind = 'secret'")
      .bind(t.site.id)
      .first<{ created_by: string }>();
    const userId = key!.created_by;
    const [mine] = await personas(t.site.id);
    // A second persona of the same user on the site, and another person's.
    await (await contentDbOf(t.site.id)).batch([
      (await contentDbOf(t.site.id))
        .prepare(
          "INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, 'ana-pen-name', 'Ana Pen Name', ?, ?)",
        )
        .bind(t.site.id, userId, new Date().toISOString()),
      (await contentDbOf(t.site.id))
        .prepare(
          "INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, 'bruno', 'Bruno', ?, ?)",
        )
        .bind(t.site.id, newId(), new Date().toISOString()),
    ]);
    const second = await createPost(t.ck, { title: "Pen name", author_slug: "ana-pen-name" });

    const message = { type: "account.deleted", user_id: userId, at: new Date().toISOString() };
    await queue.send(message);
    await until(
      async () =>
        (await personas(t.site.id)).every((p) => p.user_id !== userId || p.display_name.startsWith("Former")),
      "the personas renamed",
    );
    const after = await personas(t.site.id);
    const renamed = after.filter((p) => p.user_id === userId);
    expect(renamed.map((p) => p.display_name)).toEqual(["Former author", "Former author 2"]);
    for (const p of renamed) {
      expect(p.slug).toMatch(/^former-author-[0-9a-f]{12}$/);
      expect(p.slug).not.toBe(mine!.slug);
    }
    expect(after.find((p) => p.slug === "bruno")?.display_name).toBe("Bruno");
    const posts = await (await contentDbOf(t.site.id))
      .prepare("SELECT id, author_slug, author_name FROM posts WHERE id IN (?, ?)")
      .bind(first.id, second.id)
      .all<{ id: string; author_slug: string; author_name: string }>();
    for (const post of posts.results) {
      expect(renamed.map((p) => p.slug)).toContain(post.author_slug);
      expect(post.author_name).toMatch(/^Former author/);
    }
    const keyName = await (await contentDbOf(t.site.id))
      .prepare("SELECT author_name FROM api_keys WHERE site_id = ? AND kind = 'secret'")
      .bind(t.site.id)
      .first<{ author_name: string }>();
    expect(keyName!.author_name).toBe("Former author");

    // Redelivered, then a malformed one: nothing more changes.
    await queue.send(message);
    await queue.send({ type: "account.deleted", user_id: "" });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await personas(t.site.id)).toEqual(after);
  });
});
