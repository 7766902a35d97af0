import { expect } from "vitest";

/**
 * Timing comparisons for enumeration and equal-cost rules: a statistical test, not a wall-clock threshold.
 * Samples are taken in interleaved pairs (`a[i]` and `b[i]` one after the other, which goes first
 * alternating), and the test is on the pairs: a two-sided Wilcoxon signed-rank test of the differences
 * `a[i] - b[i]` must not separate the series at p < 0.001, and their medians must be within a loose
 * relative bound. Pairing is what makes it hold on a shared CI machine: a slow stretch of the machine
 * (a neighbour's burst, a collection) lifts both members of the pairs it covers, so it cancels in their
 * differences, where an unpaired rank test (Mann-Whitney, used before) counted the slow stretch's samples
 * against whichever series happened to hold more of them, and failed once in CI with nothing wrong. A
 * path that skips the KDF or adds a lookup differs in every pair, so it fails by a wide margin.
 */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Two-sided Wilcoxon signed-rank test of paired samples, normal approximation: zero differences dropped,
 * average ranks for tied magnitudes, the variance corrected for ties. 0 when no pair differs.
 */
export function wilcoxonSignedRankZ(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error("paired samples: the two series must be equally long");
  const diffs = a.map((v, i) => v - b[i]!).filter((d) => d !== 0);
  const sorted = diffs.map((d) => ({ d, m: Math.abs(d) })).sort((x, y) => x.m - y.m);
  const n = sorted.length;
  let plus = 0;
  let tieCorrection = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && sorted[j + 1]!.m === sorted[i]!.m) j++;
    const rank = (i + j) / 2 + 1;
    const t = j - i + 1;
    tieCorrection += (t * t * t - t) / 48;
    for (let k = i; k <= j; k++) if (sorted[k]!.d > 0) plus += rank;
    i = j + 1;
  }
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - tieCorrection;
  return variance <= 0 ? 0 : (plus - (n * (n + 1)) / 4) / Math.sqrt(variance);
}

/** `a[i]` and `b[i]` must be one interleaved pair (see the module's comment). */
export function expectIndistinguishableTimes(
  label: string,
  a: number[],
  b: number[],
  { relative = 0.35, floorMs = 10 }: { relative?: number; floorMs?: number } = {},
) {
  const ma = median(a);
  const mb = median(b);
  const z = wilcoxonSignedRankZ(a, b);
  console.log(
    `${label}: medians ${ma.toFixed(1)} ms vs ${mb.toFixed(1)} ms, Wilcoxon signed-rank z=${z.toFixed(2)} (${a.length} pairs)`,
  );
  expect(Math.abs(z)).toBeLessThan(3.29);
  expect(Math.abs(ma - mb)).toBeLessThanOrEqual(Math.max(floorMs, relative * Math.max(ma, mb)));
}
