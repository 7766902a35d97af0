/**
 * One `vitest run` (or `vitest list`, which the test-list diff uses) refuses a config whose projects share a
 * `sequence.groupOrder` with different worker counts ("Projects … have different 'maxWorkers' but same
 * 'sequence.groupOrder'"); `npm test` runs its lanes apart and would not notice. A project that runs its
 * files one at a time (`fileParallelism: false` or `maxWorkers: 1`) needs a group of its own.
 */
import { describe, expect, it } from "vitest";
import config from "../../vitest.config";

interface ProjectTest {
  name?: string;
  maxWorkers?: number;
  fileParallelism?: boolean;
  sequence?: { groupOrder?: number };
  expect?: { poll?: { timeout?: number } };
}

describe("vitest.config.ts projects", () => {
  it("share a group only with projects of the same worker count", () => {
    const rootWorkers = config.test?.maxWorkers;
    const projects = (config.test?.projects ?? []) as { test?: ProjectTest }[];
    const groups = new Map<number, Map<string, string[]>>();
    for (const project of projects) {
      const test = project.test ?? {};
      const workers = test.fileParallelism === false ? "1" : String(test.maxWorkers ?? rootWorkers);
      const group = test.sequence?.groupOrder ?? 0;
      const byWorkers = groups.get(group) ?? new Map<string, string[]>();
      byWorkers.set(workers, [...(byWorkers.get(workers) ?? []), test.name ?? "?"]);
      groups.set(group, byWorkers);
    }
    const mixed = [...groups].filter(([, byWorkers]) => byWorkers.size > 1);
    expect(mixed.map(([group, byWorkers]) => ({ group, workers: Object.fromEntries(byWorkers) }))).toEqual(
      [],
    );
    expect(projects.length).toBeGreaterThan(5);
  });

  it("the browser project polls a page's state for seconds, not vitest's default 1 s", () => {
    // A page fills a table after its own fetches; on two busy cores that took longer than 1 s (a run of
    // passkey-first.test.ts beside other work), and `expect.poll` without a timeout gave up.
    const projects = (config.test?.projects ?? []) as { test?: ProjectTest }[];
    const browser = projects.find((p) => p.test?.name === "browser");
    expect(browser?.test?.expect?.poll?.timeout ?? 1000).toBeGreaterThanOrEqual(10_000);
  });
});
