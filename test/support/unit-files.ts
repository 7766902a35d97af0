/**
 * Node-side (vitest config): which `*.unit.test.ts` files of the workerd projects can run in Node. A file
 * can when nothing it imports, directly or through its relative imports (test helpers, src modules),
 * comes from `cloudflare:` (cloudflare:test, cloudflare:workers, ...): those need the Workers runtime.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const IMPORT =
  /(?:import|export)\s(?!type\s)[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g;

const memo = new Map<string, boolean>();

function resolveRelative(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) return candidate;
  }
  return null;
}

/** True when `file` or anything it imports relatively imports a `cloudflare:` module. */
export function needsWorkerd(file: string, seen = new Set<string>()): boolean {
  const known = memo.get(file);
  if (known !== undefined) return known;
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  let result = false;
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? "";
    if (spec.startsWith("cloudflare:")) {
      result = true;
      break;
    }
    if (!spec.startsWith(".")) continue;
    const target = resolveRelative(file, spec);
    if (target && needsWorkerd(target, seen)) {
      result = true;
      break;
    }
  }
  memo.set(file, result);
  return result;
}

/** The unit files under `test/<dir>/` (repository-relative paths) that run in Node. */
export function nodeUnitFiles(root: string, dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(path.join(root, "test", dir))
      .filter((f) => f.endsWith(".unit.test.ts"))
      .map((f) => `test/${dir}/${f}`)
      .filter((f) => !needsWorkerd(path.join(root, f))),
  );
}
