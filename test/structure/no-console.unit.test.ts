import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSource, relative, root, sourceFiles } from "./source-files";

/** The logger is the one module that writes to the console; everything else logs through it. */
const LOGGER = "src/lib/log.ts";

function consoleCalls(text: string): number[] {
  return text.split("\n").flatMap((line, i) => (/\bconsole\s*\.\s*\w+/.test(line) ? [i + 1] : []));
}

describe("console in src/", () => {
  it("is used by the logger only (every other line goes through c.get('log') or a batch/run logger)", () => {
    const offenders = sourceFiles()
      .filter((file) => relative(file) !== LOGGER)
      .flatMap((file) => consoleCalls(readSource(file)).map((line) => `${relative(file)}:${line}`));
    expect(offenders).toEqual([]);
  });

  it("is still how the logger writes (the rule above guards something real)", () => {
    expect(consoleCalls(readSource(path.join(root, LOGGER))).length).toBeGreaterThan(0);
  });
});
