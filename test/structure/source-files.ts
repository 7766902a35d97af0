/** Reading `src/` for the structure rules (Node only: workerd tests cannot read files). */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");
export const srcDir = path.join(root, "src");

/** Every TypeScript module under `src/` (ambient `.d.ts` declarations are never imported), sorted. */
export function sourceFiles(dir = srcDir): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => path.join(dir, name))
    .sort();
}

export function readSource(file: string): string {
  return readFileSync(file, "utf8");
}

/** `src/<service>/errors.ts` for messages: the path from the repository's root. */
export function relative(file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}
