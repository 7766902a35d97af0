/**
 * `npm run bench:ab` (bench/ab.mjs): today's rows before and after a change, paired. Which side runs first
 * alternates by row and by round; a row's paths move on each round so a cold row never repeats an earlier
 * round's `since`; a row's figure is the median of its rounds' after ÷ before; the report names every row
 * under 0.9x. No load, no platform: the arithmetic and the report only.
 */
import { describe, expect, it } from "vitest";
import { firstSide, pairedFigures, parseAbArgs, renderAb, roundSpec } from "../../bench/ab.mjs";

describe("the paired bench", () => {
  it("alternates which side runs first, by row and by round", () => {
    expect([0, 1, 2, 3].map((i) => firstSide(i, 0))).toEqual(["before", "after", "before", "after"]);
    expect([0, 1, 2, 3].map((i) => firstSide(i, 1))).toEqual(["after", "before", "after", "before"]);
  });

  it("starts each round on paths of its own, every path still asked", () => {
    const spec = { method: "GET", paths: Array.from({ length: 9 }, (_, i) => `/p${i}`) };
    expect(roundSpec(spec, 0, 3)).toBe(spec);
    const second = roundSpec(spec, 1, 3);
    expect(second.paths.slice(0, 3)).toEqual(["/p3", "/p4", "/p5"]);
    expect([...second.paths].sort()).toEqual([...spec.paths].sort());
    expect(roundSpec(spec, 2, 3).paths[0]).toBe("/p6");
    // One path (a warm row): unchanged.
    expect(roundSpec({ paths: ["/health"] }, 2, 3).paths).toEqual(["/health"]);
  });

  it("takes the median of the rounds' after ÷ before, never mixing rounds", () => {
    const runs = [
      { round: 0, side: "before" as const, rps: 100 },
      { round: 0, side: "after" as const, rps: 80 },
      { round: 1, side: "after" as const, rps: 300 },
      { round: 1, side: "before" as const, rps: 200 },
      { round: 2, side: "before" as const, rps: 50 },
      { round: 2, side: "after" as const, rps: 55 },
    ];
    const f = pairedFigures(runs);
    expect(f?.pairs.map((p) => p.ratio)).toEqual([0.8, 1.5, 1.1]);
    expect(f?.median).toBeCloseTo(1.1);
    // A round with one side only is left out.
    expect(pairedFigures(runs.slice(0, 3))?.pairs).toHaveLength(1);
    expect(pairedFigures([])).toBeNull();
  });

  it("names every row under 0.9x of before, and says so when none is", () => {
    const base = {
      at: "2026-11-29T00:00:00Z",
      machine: "2 cores",
      before: { rev: "dd683fb", sha: "dd683fb0000" },
      after: { sha: "abcdef00000" },
      rounds: 2,
      options: { duration: 10, warmup: 2 },
      unpaired: [],
    };
    const row = (id: string, variant: string, median: number) => ({
      id,
      variant,
      label: `GET ${id}`,
      unexpected: 0,
      median,
      pairs: [{ before: 100, after: 100 * median, ratio: median }],
    });
    const bad = renderAb({
      ...base,
      rows: [row("a", "emulated", 0.85), row("b", "local", 0.95), row("c", "local", 0.7)],
    });
    expect(bad).toMatch(/Below 0\.9x of before: GET a 0\.85x; GET c \(local limiters\) 0\.7x\./);
    expect(bad).toMatch(/\| GET c, local limiters \| 100 \| 70 \| 0\.7 \| 0\.7x \| 0 \|/);
    expect(renderAb({ ...base, rows: [row("a", "emulated", 0.9)] })).toMatch(
      /No row below 0\.9x of before\./,
    );
  });

  it("takes one revision, rounds from 1, and passes the bench's own options on", () => {
    expect(parseAbArgs(["dd683fb", "--rounds", "2", "--duration", "5", "--quick"])).toMatchObject({
      rev: "dd683fb",
      rounds: 2,
      rest: ["--duration", "5", "--quick"],
      quick: true,
    });
    expect(parseAbArgs(["HEAD~1"])).toMatchObject({ rounds: 3, only: null, local: true });
    expect(parseAbArgs(["HEAD~1", "--only", "trivial,list_pk_", "--no-local-limiters"])).toMatchObject({
      only: ["trivial", "list_pk_"],
      local: false,
      rest: [],
    });
    expect(() => parseAbArgs([])).toThrow(/usage/);
    expect(() => parseAbArgs(["a", "b"])).toThrow(/one revision/);
    expect(() => parseAbArgs(["a", "--rounds", "0"])).toThrow(/rounds/);
  });
});
