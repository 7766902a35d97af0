import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/content/core/cursor";
import { etagFor, matchesIfNoneMatch } from "../../src/content/core/etag";
import { canonicalJson } from "../../src/content/core/idempotency-store";
import { parseRfc3339 } from "../../src/content/core/time";
import { normalizeOrigin } from "../../src/content/keys/admin";
import { settleStatus } from "../../src/content/posts/input";
import { canonicalLanguage } from "../../src/content/posts/language";
import { ftsQuery, parseLimit } from "../../src/content/posts/listing";
import { isValidSlug, slugCandidates, slugify } from "../../src/content/posts/slug";
import { effectiveStatus } from "../../src/content/posts/store";
import { newId } from "../../src/lib/ids";

describe("slugs", () => {
  it("derives ASCII slugs from titles", () => {
    expect(slugify("Olá, Mundo!")).toBe("ola-mundo");
    expect(slugify("  --Hello   World--  ")).toBe("hello-world");
    expect(slugify("日本語")).toBe("post");
    expect(slugify("x".repeat(500)).length).toBeLessThanOrEqual(200);
  });
  it("never derives or accepts a slug that reads as an id", () => {
    const id = newId().toLowerCase();
    expect(isValidSlug(id)).toBe(false);
    expect(isValidSlug(slugify(id))).toBe(true);
    expect(isValidSlug(crypto.randomUUID())).toBe(false);
  });
  it("validates format", () => {
    for (const ok of ["a", "a-b", "a1-2b"]) expect(isValidSlug(ok)).toBe(true);
    for (const bad of ["", "A", "a--b", "-a", "a-", "a_b", "a b", "a".repeat(201)])
      expect(isValidSlug(bad)).toBe(false);
  });
  it("collision candidates are base, base-2, base-3 …", () => {
    expect(slugCandidates("x", 3)).toEqual(["x", "x-2", "x-3"]);
    expect(slugCandidates("x", 2, 21)).toEqual(["x-21", "x-22"]);
  });
});

describe("languages and timestamps", () => {
  it("canonicalizes BCP-47 case", () => {
    expect(canonicalLanguage("PT-br")).toBe("pt-BR");
    expect(canonicalLanguage("zh-hant-tw")).toBe("zh-Hant-TW");
    expect(canonicalLanguage("en")).toBe("en");
    for (const bad of ["", "e", "english", "en_US", "en-", "1en"]) expect(canonicalLanguage(bad)).toBeNull();
  });
  it("parses RFC 3339 into UTC with milliseconds", () => {
    expect(parseRfc3339("2026-01-02T03:04:05+02:00")).toBe("2026-01-02T01:04:05.000Z");
    expect(parseRfc3339("2026-01-02T03:04:05.123456Z")).toBe("2026-01-02T03:04:05.123Z");
    for (const bad of ["2026-01-02", "yesterday", "2026-13-02T00:00:00Z", "1700000000"])
      expect(parseRfc3339(bad)).toBeNull();
  });
});

describe("status rules", () => {
  const now = "2026-06-01T00:00:00.000Z";
  it("published dated in the future is stored as scheduled; scheduled needs a future date", () => {
    expect(settleStatus("published", null, now)).toEqual({ status: "published", published_at: now });
    expect(settleStatus("published", "2026-07-01T00:00:00.000Z", now).status).toBe("scheduled");
    expect(() => settleStatus("scheduled", null, now)).toThrow();
    expect(() => settleStatus("scheduled", "2026-05-01T00:00:00.000Z", now)).toThrow();
  });
  it("a scheduled post whose date came reads as published", () => {
    expect(effectiveStatus({ status: "scheduled", published_at: "2026-05-01T00:00:00.000Z" }, now)).toBe(
      "published",
    );
    expect(effectiveStatus({ status: "scheduled", published_at: "2026-07-01T00:00:00.000Z" }, now)).toBe(
      "scheduled",
    );
  });
});

describe("cursor", () => {
  it("round-trips and refuses any change or another secret", async () => {
    const payload = { m: "p" as const, p: "2026-01-01T00:00:00.000Z", i: newId(), f: "abc" };
    const c = await encodeCursor("s1", payload);
    expect(await decodeCursor("s1", c)).toEqual(payload);
    expect(await decodeCursor("s2", c)).toBeNull();
    const flipped = c.slice(0, 5) + (c[5] === "A" ? "B" : "A") + c.slice(6);
    expect(await decodeCursor("s1", flipped)).toBeNull();
    expect(await decodeCursor("s1", "x".repeat(2000))).toBeNull();
  });
});

describe("list parameters", () => {
  it("limit 1..50 exactly", () => {
    expect(parseLimit(undefined)).toBe(20);
    expect(parseLimit("1")).toBe(1);
    expect(parseLimit("50")).toBe(50);
    for (const bad of ["0", "51", "01.0", "-1", " 5"]) expect(() => parseLimit(bad)).toThrow();
  });
  it("q becomes quoted prefix terms; no FTS syntax passes through", () => {
    expect(ftsQuery("hello world")).toBe('"hello"* "world"*');
    expect(ftsQuery('a"b OR c')).toBe('"a"* "b"* "OR"* "c"*');
    // Control characters separate terms: a NUL inside an FTS5 string would end it early (D1 error).
    expect(ftsQuery("a\u0000b\u0001c")).toBe('"a"* "b"* "c"*');
    expect(ftsQuery("café naïve")).toBe('"café"* "naïve"*');
    expect(ftsQuery("*** ---")).toBeNull();
  });
});

describe("etag, origins, canonical JSON", () => {
  it("If-None-Match matches weakly, lists and *", async () => {
    const e = await etagFor("body");
    expect(matchesIfNoneMatch(e, e)).toBe(true);
    expect(matchesIfNoneMatch(`W/${e}`, e)).toBe(true);
    expect(matchesIfNoneMatch(`"x", ${e}`, e)).toBe(true);
    expect(matchesIfNoneMatch("*", e)).toBe(true);
    expect(matchesIfNoneMatch('"x"', e)).toBe(false);
    expect(matchesIfNoneMatch(undefined, e)).toBe(false);
  });
  it("allowed origins must be exact", () => {
    expect(normalizeOrigin("https://a.test")).toBe("https://a.test");
    expect(normalizeOrigin("https://a.test/")).toBe("https://a.test");
    expect(normalizeOrigin("http://a.test:8080")).toBe("http://a.test:8080");
    for (const bad of [
      "https://a.test/x",
      "https://*.a.test",
      "a.test",
      "ftp://a.test",
      "https://a.test?x=1",
      "null",
    ]) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });
  it("canonical JSON ignores key order only", () => {
    expect(canonicalJson({ b: 1, a: [{ y: 1, x: 2 }] })).toBe(canonicalJson({ a: [{ x: 2, y: 1 }], b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
