#!/usr/bin/env node
/**
 * `npm test`: typecheck, lint, then every vitest project (vitest.config.ts).
 * `npm test -- <project> [<project> ...] [vitest options or file filters]`: the fast path for one area,
 * only vitest, only those projects (identity, content, sites, gateway, e2e, unit, timing, structure,
 * deploy, browser), e.g. `npm test -- identity test/identity/login.security.test.ts`.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PROJECTS = new Set([
  "identity",
  "content",
  "sites",
  "gateway",
  "e2e",
  "unit",
  "timing",
  "structure",
  "deploy",
  "browser",
]);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const vitest = path.join(root, "node_modules/.bin/vitest");
const args = process.argv.slice(2);
if (args.length === 0) {
  run("npm", ["run", "--silent", "typecheck"]);
  run("npm", ["run", "--silent", "lint"]);
  run(vitest, ["run"]);
} else {
  run(vitest, ["run", ...args.flatMap((a) => (PROJECTS.has(a) ? ["--project", a] : [a]))]);
}
