#!/usr/bin/env node
/**
 * `npm run typecheck`: the three TypeScript programs (the Workers and their tests; the Node-side scripts,
 * configs and test support; the browser code and browser tests), checked by TypeScript 7 (the native
 * compiler, `typescript-7` in devDependencies: about a third of TypeScript 5's CPU on this code), each
 * incremental (its build info under node_modules/.cache/tsc7, so a second run checks only what changed).
 *
 * `typescript` 5.9 stays installed for the tools that load the compiler as a library (knip,
 * openapi-typescript, scripts/client-gen.mjs, the structure tests' handler-length check): TypeScript 7
 * ships no such API. Both bins are named `tsc`, so this script runs TypeScript 7 by its path, never `npx`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(root, "node_modules/typescript-7/bin/tsc");
const cache = path.join(root, "node_modules/.cache/tsc7");
mkdirSync(cache, { recursive: true });

let failed = false;
for (const [name, config] of [
  ["main", "tsconfig.json"],
  ["node", "tsconfig.node.json"],
  ["browser", "tsconfig.browser.json"],
]) {
  const run = spawnSync(
    process.execPath,
    [
      tsc,
      "--noEmit",
      "--incremental",
      "--tsBuildInfoFile",
      path.join(cache, `${name}.tsbuildinfo`),
      "-p",
      config,
    ],
    { cwd: root, stdio: "inherit" },
  );
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
