import { describe, expect, it } from "vitest";
import { freshUntil, IsolateAnswers, PUBLIC_ANSWER_TTL_MS } from "../../src/content/core/edge-cache";

describe("the freshness of an edge-cached public answer", () => {
  it("is its TTL, cut at the site's next scheduled publication", () => {
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    expect(freshUntil(now, null)).toBe(now + PUBLIC_ANSWER_TTL_MS);
    expect(freshUntil(now, "2026-03-01T12:00:20.000Z")).toBe(now + 20_000);
    expect(freshUntil(now, "2026-03-01T13:00:00.000Z")).toBe(now + PUBLIC_ANSWER_TTL_MS);
  });
});

describe("the isolate's hot answers", () => {
  const answer = (body: string) => ({ body, etag: `"${body.length}"` });

  it("an answer is served until its freshness ends, never at or after it", () => {
    const hot = new IsolateAnswers(10, 1_000);
    hot.set("u1", answer("one"), 5_000);
    expect(hot.get("u1", 4_999)?.body).toBe("one");
    expect(hot.get("u1", 5_000)).toBeNull();
    expect(hot.get("u1", 0)).toBeNull();
  });

  it("holds at most its entries and characters, dropping the least recently used; a huge answer is not kept", () => {
    const hot = new IsolateAnswers(2, 1_600);
    hot.set("a", answer("a".repeat(90)), 10);
    hot.set("b", answer("b".repeat(90)), 10);
    expect(hot.get("a", 0)).not.toBeNull();
    hot.set("c", answer("c".repeat(90)), 10);
    expect(hot.get("b", 0)).toBeNull();
    expect(hot.get("a", 0)).not.toBeNull();
    expect(hot.get("c", 0)).not.toBeNull();
    hot.set("d", answer("d".repeat(101)), 10);
    expect(hot.get("d", 0)).toBeNull();
    const byChars = new IsolateAnswers(100, 1_600);
    for (const k of [
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
      "j",
      "k",
      "l",
      "m",
      "n",
      "o",
      "p",
      "q",
      "r",
    ]) {
      byChars.set(k, answer(k.repeat(100)), 10);
    }
    expect(byChars.get("a", 0)).toBeNull();
    expect(byChars.get("r", 0)).not.toBeNull();
  });
});

describe("the isolate's hot answers are sized by characters, not by a count that small answers hit first", () => {
  const answer = (body: string) => ({ body, etag: `"${body.length}"` });

  it("hold a site's 1,000 most read post details of ~2 KB beside its listings (a 256-entry bound held a quarter)", async () => {
    const { HOT_ANSWERS } = await import("../../src/content/core/edge-cache");
    const hot = new IsolateAnswers(HOT_ANSWERS.maxEntries, HOT_ANSWERS.maxChars);
    const detail = (i: number) => answer(`${i}`.padEnd(2_000, "d"));
    for (let i = 0; i < 1_000; i++) hot.set(`post-${i}`, detail(i), 10);
    for (let i = 0; i < 50; i++) hot.set(`list-${i}`, answer(`${i}`.padEnd(10_000, "l")), 10);
    // Read in the order they were written (a reader cycling through them): every one is still there.
    for (let i = 0; i < 1_000; i++) expect(hot.get(`post-${i}`, 0)?.body, `post-${i}`).toBe(detail(i).body);
    // Still bounded: at most its characters (~8 MiB of memory at two bytes a character).
    expect(HOT_ANSWERS.maxChars).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});
