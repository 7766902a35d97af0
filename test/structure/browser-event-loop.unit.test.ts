/**
 * The browser project's tests call the running platform with Node's `fetch` and never block their event
 * loop on a child process (test/support/browser-processes.ts has the mechanism: a synchronous child that
 * outlives workerd's 15 s idle close leaves undici a dead keep-alive socket, and the next fetch fails with
 * "other side closed"). Every test file of the project and every support module it can import is read;
 * `spawnSync`, `execSync` and `execFileSync` are refused by name.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSource, relative, root } from "./source-files";

const SYNC_CHILD = /\b(spawnSync|execSync|execFileSync)\b/;

/** The browser project's test files and, transitively, the relative modules they import. */
function browserProjectFiles(): string[] {
  const start = readdirSync(path.join(root, "test/browser"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(root, "test/browser", name));
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readSource(file).matchAll(/from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const base = path.resolve(path.dirname(file), m[1]!);
      const found = [base, `${base}.ts`].find((f) => f.endsWith(".ts") && existsSync(f));
      if (found?.startsWith(path.join(root, "test"))) queue.push(found);
    }
  }
  return [...seen].sort();
}

describe("the browser project keeps its event loop free", () => {
  it("reads the project's files and the test support they import", () => {
    const files = browserProjectFiles().map(relative);
    expect(files).toContain("test/browser/seed-env.test.ts");
    expect(files).toContain("test/support/browser-processes.ts");
  });

  it("runs no synchronous child process (spawnSync, execSync, execFileSync)", () => {
    const offenders = browserProjectFiles()
      .filter((file) => !file.endsWith("browser-processes.ts"))
      .flatMap((file) =>
        readSource(file)
          .split("\n")
          .map((line, i) => ({ line, at: `${relative(file)}:${i + 1}` }))
          .filter(({ line }) => SYNC_CHILD.test(line) && !line.trim().startsWith("*"))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});
