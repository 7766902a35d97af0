/** The module graph of `src/`: every relative `import`/`export … from` (type-only included), as edges. */
import { existsSync } from "node:fs";
import path from "node:path";
import { readSource } from "./source-files";

/** Static `import … from`, `export … from`, bare `import "x"` and dynamic `import("x")` specifiers. */
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/**
 * The module a relative specifier names; null for packages and for JSON data (it imports nothing, so it
 * closes no cycle: the pages' generated browser-bundle.json); "unresolved" when no file matches.
 */
export function resolveModule(from: string, specifier: string): string | null | "unresolved" {
  if (!specifier.startsWith(".")) return null;
  const base = path.resolve(path.dirname(from), specifier);
  if (base.endsWith(".json") && existsSync(base)) return null;
  for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) return candidate;
  }
  return "unresolved";
}

export type ImportGraph = Map<string, string[]>;

export function importGraph(files: string[], read: (file: string) => string = readSource): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = importSpecifiers(read(file)).flatMap((s) => {
      const target = resolveModule(file, s);
      return target === null || target === "unresolved" ? [] : [target];
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The cycles of the graph: one example cycle (first module repeated at the end) per strongly connected
 * component that has one (Tarjan's algorithm), so a tangle of many modules is reported once.
 */
export function findCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components.map((component) => exampleCycle(graph, new Set(component)));
}

/** A shortest path from the component's first module (in sort order) back to itself. */
function exampleCycle(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
