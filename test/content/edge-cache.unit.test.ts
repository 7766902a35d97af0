import { describe, expect, it } from "vitest";
import { freshUntil, PUBLIC_ANSWER_TTL_MS } from "../../src/content/edge-cache";

describe("the freshness of an edge-cached public answer", () => {
  it("is its TTL, cut at the site's next scheduled publication", () => {
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    expect(freshUntil(now, null)).toBe(now + PUBLIC_ANSWER_TTL_MS);
    expect(freshUntil(now, "2026-03-01T12:00:20.000Z")).toBe(now + 20_000);
    expect(freshUntil(now, "2026-03-01T13:00:00.000Z")).toBe(now + PUBLIC_ANSWER_TTL_MS);
  });
});
