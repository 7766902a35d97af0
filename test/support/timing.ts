import { expect } from "vitest";

/**
 * Timing comparisons for enumeration and equal-cost rules: a statistical test, not a wall-clock threshold.
 * Samples must be taken interleaved (so machine drift hits both series alike). Two series count as
 * indistinguishable when a two-sided Mann-Whitney U test does not separate them at p < 0.001 and their
 * medians are within a loose relative bound; a path that skips the KDF differs by ~100% and in every sample,
 * so it fails both checks by a wide margin, while load spikes on a shared CI machine do not.
 */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Two-sided Mann-Whitney U test, normal approximation, average ranks for ties. */
export function mannWhitneyZ(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  let rankA = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k]!.g === 0) rankA += rank;
    i = j + 1;
  }
  const n1 = a.length;
  const n2 = b.length;
  const u = rankA - (n1 * (n1 + 1)) / 2;
  const sigma = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  return sigma === 0 ? 0 : (u - (n1 * n2) / 2) / sigma;
}

export function expectIndistinguishableTimes(
  label: string,
  a: number[],
  b: number[],
  { relative = 0.35, floorMs = 10 }: { relative?: number; floorMs?: number } = {},
) {
  const ma = median(a);
  const mb = median(b);
  const z = mannWhitneyZ(a, b);
  console.log(`${label}: medians ${ma.toFixed(1)} ms vs ${mb.toFixed(1)} ms, Mann-Whitney z=${z.toFixed(2)}`);
  expect(Math.abs(z)).toBeLessThan(3.29);
  expect(Math.abs(ma - mb)).toBeLessThanOrEqual(Math.max(floorMs, relative * Math.max(ma, mb)));
}
