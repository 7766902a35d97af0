/**
 * The public read of one post finds it by its key, not by scanning the site's feed: SQLite (no statistics
 * in D1) picked the feed index (site_id, published_at) for a slug lookup and read every published post of
 * the site on each cache miss (the bench's detail row fell to 61 req/s at 10,000 posts). The plans are read
 * from D1 itself.
 */
import { describe, expect, it } from "vitest";
import { keyLookup } from "../../src/content/keys/store";
import { publicPostMatch } from "../../src/content/posts/store";
import { contentGroupDb } from "../support/content-groups";

// Every group runs the same migrations, so one group's plans are every group's.
const db = contentGroupDb("g000");

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

describe("query plan of the key lookup (every authenticated request)", () => {
  it("finds the key by its hash and its site by id: the site_owner view is never materialized (no scan of every site)", async () => {
    const query = keyLookup(db, "a-key-hash").toSQL();
    const { results } = await db
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const text = results.map((r) => r.detail).join("\n");
    expect(text).toMatch(/SEARCH \S+ USING INDEX \S+ \(key_hash=\?\)/);
    expect(text).not.toContain("MATERIALIZE");
    expect(text).not.toMatch(/\bSCAN\b(?! CONSTANT)/);
  });
});
