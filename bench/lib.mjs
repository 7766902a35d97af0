// Small measuring kit for the benches: percentiles, summaries, timed calls.
import os from "node:os";

/** The machine as a report's first line names it: cores, CPU model, Node, the load average at the start. */
export function machineLine() {
  const load = os
    .loadavg()
    .map((l) => round(l, 2))
    .join(" ");
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, load average ${load} at start`;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    n: samples.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    mean_ms: round(mean),
  };
}

/** The middle of `xs` (the mean of the middle two when even). */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export async function timed(fn) {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}
