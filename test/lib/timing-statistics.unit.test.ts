/** The paired rank test behind the timing project's equal-time rules (test/support/timing.ts). */
import { describe, expect, it } from "vitest";
import { wilcoxonSignedRankZ } from "../support/timing";

describe("wilcoxonSignedRankZ", () => {
  it("is 0 for identical series, and the normal approximation's value for all-positive differences", () => {
    expect(wilcoxonSignedRankZ([1, 2, 3], [1, 2, 3])).toBe(0);
    // n = 10 distinct positive differences: W+ = 55, mean 27.5, variance 10·11·21/24 = 96.25.
    const a = Array.from({ length: 10 }, (_, i) => 20 + i + 1);
    const b = Array.from({ length: 10 }, () => 20);
    expect(wilcoxonSignedRankZ(a, b)).toBeCloseTo(27.5 / Math.sqrt(96.25), 6);
    expect(wilcoxonSignedRankZ(b, a)).toBeCloseTo(-27.5 / Math.sqrt(96.25), 6);
  });

  it("separates a series that is 2 ms slower in every pair, through noise larger than the difference", () => {
    const noise = (i: number) => ((i * 7919) % 13) - 6; // deterministic, ±6 ms
    const b = Array.from({ length: 30 }, (_, i) => 22 + noise(i));
    const a = b.map((v, i) => v + 2 + (i % 3) * 0.5);
    expect(Math.abs(wilcoxonSignedRankZ(a, b))).toBeGreaterThan(3.29);
  });

  it("is not moved by a slow stretch of the machine that lifts both members of the pairs it covers", () => {
    const base = Array.from({ length: 30 }, (_, i) => 22 + (((i * 31) % 7) - 3));
    const a = base.map((v, i) => v + (i % 2 ? 1 : -1));
    const b = base.map((v, i) => v + (i % 2 ? -1 : 1));
    for (let i = 4; i < 10; i++) {
      a[i]! += 60;
      b[i]! += 55 + (i % 2) * 10;
    }
    expect(Math.abs(wilcoxonSignedRankZ(a, b))).toBeLessThan(3.29);
  });

  it("refuses series of different lengths (they are not pairs)", () => {
    expect(() => wilcoxonSignedRankZ([1, 2], [1])).toThrow(/equally long/);
  });
});
