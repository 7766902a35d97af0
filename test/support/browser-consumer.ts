/**
 * A consumer project of `@site-platform/client` for the browser tests: a program and its strict tsconfig
 * (Node's ESM resolution) in a folder, compiled by this repository's tsc. Every process runs
 * asynchronously (browser-processes.ts says why never synchronously here).
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { runChecked } from "./browser-processes";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** `command` run in `cwd` with this process's environment and `env` on top; its stdout. */
export function runIn(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return runChecked(command, args, { cwd, env: { ...process.env, ...env } });
}

/** Writes `program` and its tsconfig into `consumer` and compiles it with tsc (a type error fails). */
export async function compileConsumer(consumer: string, program: string): Promise<void> {
  writeFileSync(path.join(consumer, "main.ts"), program);
  writeFileSync(
    path.join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        lib: ["ES2023", "DOM"],
        types: [],
        outDir: "out",
      },
      files: ["main.ts"],
    }),
  );
  await runIn(process.execPath, [tsc, "-p", "tsconfig.json"], consumer);
}
