/**
 * The public read of one post finds it by its key, not by scanning the site's feed: SQLite (no statistics
 * in D1) picked the feed index (site_id, published_at) for a slug lookup and read every published post of
 * the site on each cache miss (the bench's detail row fell to 61 req/s at 10,000 posts). The plans are read
 * from D1 itself.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { publicPostMatch } from "../../src/content/posts/store";

const db = (env as unknown as { DB: D1Database }).DB;

async function plan(where: string, params: unknown[]): Promise<string> {
  const { results } = await db
    .prepare(`EXPLAIN QUERY PLAN SELECT p.id FROM posts p WHERE ${where} ORDER BY p.language`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail).join("\n");
}

describe("query plans of a public post read", () => {
  const now = new Date().toISOString();
  it.each([
    ["a slug", { slug: "hello", language: null }, /USING INDEX \S+ \(site_id=\? AND slug=\?\)/],
    [
      "a slug in one language",
      { slug: "hello", language: "en" },
      /\(site_id=\? AND slug=\? AND language=\?\)/,
    ],
    ["an id", { id: "01J00000000000000000000000" }, /\(id=\?\)/],
  ] as const)("by %s: the post's own key, never the feed index", async (_name, reference, expected) => {
    const [where, params] = publicPostMatch("site-1", reference, now);
    const text = await plan(where, params);
    expect(text).toMatch(expected);
    expect(text).not.toContain("posts_public_feed");
  });
});
