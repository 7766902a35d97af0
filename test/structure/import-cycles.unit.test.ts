import { describe, expect, it } from "vitest";
import { findCycles, importGraph, importSpecifiers, resolveModule } from "./import-graph";
import { readSource, relative, sourceFiles } from "./source-files";

describe("imports of src/", () => {
  it("form no cycle (type-only imports included)", () => {
    const cycles = findCycles(importGraph(sourceFiles())).map((cycle) => cycle.map(relative).join(" -> "));
    expect(cycles).toEqual([]);
  });

  it("every relative import resolves to a module the walker knows (an edge it missed could hide a cycle)", () => {
    const unresolved = sourceFiles().flatMap((file) =>
      importSpecifiers(readSource(file))
        .filter((s) => resolveModule(file, s) === "unresolved")
        .map((s) => `${relative(file)}: ${s}`),
    );
    expect(unresolved).toEqual([]);
  });

  it("the walker sees every import form, so a cycle cannot hide", () => {
    const text = [
      'import type { A } from "./a";',
      "import {\n  b,\n  type B,\n} from './b';",
      'export { c } from "./c";',
      'export * from "./d";',
      'import "./e";',
      'const f = await import("./f");',
      ' * import x from "./not-code" in a comment is not at a line start of code',
      'import { z } from "zod";',
    ].join("\n");
    expect(importSpecifiers(text)).toEqual(["./a", "./b", "./c", "./d", "./e", "./f", "zod"]);
  });

  it("finds a two-module cycle and a longer one, each reported once", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
      ["c", ["d"]],
      ["d", ["e"]],
      ["e", ["c", "a"]],
      ["f", ["a"]],
    ]);
    expect(findCycles(graph).map((c) => c.join(" -> "))).toEqual(["a -> b -> a", "c -> d -> e -> c"]);
  });
});
