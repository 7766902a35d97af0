import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import { encodeCursor } from "../../src/content/core/cursor";
import {
  listPosts,
  type PostListQuery,
  parseStatuses,
  postListRequest,
  slugList,
} from "../../src/content/posts/listing";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentGroupDb } from "../support/content-groups";

const problem = (status: number, code: string, detail?: string) =>
  expect.objectContaining({ status, code, ...(detail ? { detail } : {}) });

const request = (query: PostListQuery) => postListRequest(query);

/** A site projection nobody stored: the listing reads posts by its id and builds urls from it. */
const unknownSite = (): SiteProjection => ({
  id: newId(),
  org_id: newId(),
  slug: "nowhere",
  name: "Nowhere",
  default_language: "en",
  status: "active",
  primary_domain: null,
  updated_at: "2026-01-01T00:00:00.000Z",
});

describe("GET /v1/posts query rules", () => {
  it("an empty query is the public listing: 20 items, no filters, first page", () => {
    expect(request({})).toEqual({
      limit: 20,
      statuses: null,
      cursor: null,
      total: false,
      filters: {
        categories: [],
        tags: [],
        match: null,
        since: null,
        language: null,
        postType: null,
        author: null,
      },
    });
  });

  it("limit outside 1..50 is 400 INVALID_LIMIT, never clamped", () => {
    for (const limit of ["0", "51", "1000", "abc", "1e1", ""]) {
      expect(() => request({ limit }), limit).toThrow(
        problem(400, "INVALID_LIMIT", "limit must be an integer from 1 to 50."),
      );
    }
    expect(request({ limit: "50" }).limit).toBe(50);
  });

  it("status is a comma-separated list of listable statuses; unknown (or deleted) is 400 INVALID_STATUS", () => {
    expect(parseStatuses("draft, scheduled,draft")).toEqual(["draft", "scheduled"]);
    for (const status of ["deleted", "draft,bogus", "", "Published"]) {
      expect(() => request({ status }), status).toThrow(
        problem(
          400,
          "INVALID_STATUS",
          "status must be a comma-separated list of draft, scheduled, published, archived.",
        ),
      );
    }
  });

  it("sending status switches to the authenticated listing, where author does not filter", () => {
    const listing = request({ status: "published,archived", author: "ana" });
    expect(listing.statuses).toEqual(["published", "archived"]);
    expect(listing.filters.author).toBeNull();
    expect(request({ author: "ana" }).filters.author).toBe("ana");
  });

  it("malformed post_type is 400 INVALID_POST_TYPE; malformed author is 400 BAD_REQUEST", () => {
    expect(() => request({ post_type: "Not A Slug" })).toThrow(
      problem(400, "INVALID_POST_TYPE", "post_type must be a slug."),
    );
    expect(() => request({ author: "../x" })).toThrow(problem(400, "BAD_REQUEST", "author must be a slug."));
    expect(request({ post_type: "recipe" }).filters.postType).toBe("recipe");
  });

  it("language is a BCP-47 tag, canonicalized; since is RFC 3339, normalized to UTC", () => {
    expect(() => request({ language: "english" })).toThrow(
      problem(400, "INVALID_LANGUAGE", "language must be a BCP-47 tag."),
    );
    expect(() => request({ since: "yesterday" })).toThrow(
      problem(400, "INVALID_SINCE", "since must be an RFC 3339 timestamp."),
    );
    const { filters } = request({ language: "pt-br", since: "2026-01-02T03:04:05+02:00" });
    expect(filters.language).toBe("pt-BR");
    expect(filters.since).toBe("2026-01-02T01:04:05.000Z");
  });

  it("category and tag are up to 20 distinct slugs matching ANY", () => {
    expect(slugList("category", "news, sport,news")).toEqual(["news", "sport"]);
    // Sorted: `b,a` is the listing `a,b` (one cursor binding, one edge-cache entry).
    expect(slugList("tag", "sport,news")).toEqual(["news", "sport"]);
    const many = Array.from({ length: 21 }, (_, i) => `t${i}`).join(",");
    expect(() => request({ tag: many })).toThrow(
      problem(400, "BAD_REQUEST", "tag must be up to 20 comma-separated slugs."),
    );
    expect(() => request({ category: "news,Bad Slug" })).toThrow(
      problem(400, "BAD_REQUEST", "category must be up to 20 comma-separated slugs."),
    );
  });

  it("q is at most 200 characters and becomes quoted prefix terms", () => {
    expect(() => request({ q: "x".repeat(201) })).toThrow(
      problem(400, "BAD_REQUEST", "q is limited to 200 characters."),
    );
    expect(request({ q: "hello world" }).filters.match).toBe('"hello"* "world"*');
  });

  it("checks the rules in one order: limit, then status, language, since, post_type", () => {
    const bad = { limit: "0", status: "bogus", language: "x", since: "x", post_type: "X Y" };
    expect(() => request(bad)).toThrow(problem(400, "INVALID_LIMIT"));
    expect(() => request({ ...bad, limit: "5" })).toThrow(problem(400, "INVALID_STATUS"));
    expect(() => request({ ...bad, limit: "5", status: "draft" })).toThrow(problem(400, "INVALID_LANGUAGE"));
  });

  it("keeps the cursor for the listing to verify", () => {
    expect(request({ cursor: "abc.def" }).cursor).toBe("abc.def");
  });
});

describe("GET /v1/posts cursor", () => {
  const now = "2026-06-01T00:00:00.000Z";
  // An unknown site reads as empty on any group: the first one stands for the site's.
  const contentEnv: Env = { ...(env as unknown as Env), DB: contentGroupDb("g000") };

  it("a corrupt cursor, or one of another listing, is 400 INVALID_CURSOR", async () => {
    const corrupt = postListRequest({ cursor: "not-a-cursor" });
    await expect(listPosts(contentEnv, unknownSite(), corrupt, now)).rejects.toMatchObject({
      status: 400,
      code: "INVALID_CURSOR",
      detail: "cursor is corrupt or belongs to another listing.",
    });
    const foreign = await encodeCursor(contentEnv.CURSOR_SECRET, { m: "p", p: now, i: newId(), f: "other" });
    await expect(
      listPosts(contentEnv, unknownSite(), postListRequest({ cursor: foreign }), now),
    ).rejects.toMatchObject({ code: "INVALID_CURSOR" });
  });

  it("an empty site answers an empty page in either mode", async () => {
    const site = unknownSite();
    expect(await listPosts(contentEnv, site, postListRequest({}), now)).toEqual({
      mode: "public",
      body: { items: [], next_cursor: null },
      nextPublicationAt: null,
    });
    expect(await listPosts(contentEnv, site, postListRequest({ status: "draft" }), now)).toEqual({
      mode: "status",
      body: { items: [], next_cursor: null },
    });
  });
});
