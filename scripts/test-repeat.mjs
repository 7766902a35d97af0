#!/usr/bin/env node
/**
 * `npm run test:repeat -- <n>`: the flake hunt. Clones the committed HEAD into a fresh directory (with a link
 * to `../shared` beside it, as CI has it), runs `npm install` there once, then the whole `npm test` n times
 * in a row (default 5). Every run's wall time and result, and the name of every failed test (from each
 * run's JSON reports), are printed at the end and written to `<clone>/test-artifacts/repeat-summary.md`. Exits non-zero
 * when any run failed: a test that fails one run in five is a defect to fix at its cause, never to retry.
 *
 * `--here` runs in this checkout instead of a clone (uncommitted changes included; no install).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { failedTests } from "./test-reports.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const here = args.includes("--here");
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);

function sh(command, commandArgs, cwd, extraEnv = {}) {
  const began = Date.now();
  const result = spawnSync(command, commandArgs, {
    cwd,
    stdio: "inherit",
    env: { ...process.env, ...extraEnv },
  });
  return { ok: result.status === 0, seconds: Math.round((Date.now() - began) / 1000) };
}

let dir = root;
if (!here) {
  const base = mkdtempSync(path.join(os.tmpdir(), "test-repeat-"));
  symlinkSync(path.resolve(root, "../shared"), path.join(base, "shared"));
  dir = path.join(base, "main");
  if (!sh("git", ["clone", "--quiet", root, dir], base).ok) process.exit(1);
  const install = sh("npm", ["install", "--no-audit", "--no-fund"], dir);
  if (!install.ok) process.exit(1);
  process.stdout.write(`npm install: ${install.seconds} s\n`);
}

/** Every failed test in a run's vitest JSON reports (scripts/test-reports.mjs). */
function failures(reportDir) {
  if (!existsSync(reportDir)) return [];
  return readdirSync(reportDir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => failedTests(path.join(reportDir, f), dir));
}

const results = [];
for (let i = 1; i <= runs; i++) {
  const reportDir = path.join(dir, "test-artifacts", `repeat-${i}`);
  mkdirSync(reportDir, { recursive: true });
  process.stdout.write(`\n════ run ${i} of ${runs} ════\n`);
  const run = sh("npm", ["test"], dir, { TEST_REPORT_DIR: reportDir });
  results.push({ ...run, run: i, failed: failures(reportDir) });
}

const lines = [
  `# npm test, ${runs} runs in a row (${here ? "this checkout" : `clean clone of ${dir}`})`,
  "",
  "| run | result | wall |",
  "| --- | --- | --- |",
  ...results.map((r) => `| ${r.run} | ${r.ok ? "passed" : "FAILED"} | ${r.seconds} s |`),
  "",
  ...results.flatMap((r) =>
    r.failed.length ? [`Run ${r.run} failed:`, ...r.failed.map((f) => `- ${f}`), ""] : [],
  ),
];
const summary = lines.join("\n");
writeFileSync(path.join(dir, "test-artifacts", "repeat-summary.md"), `${summary}\n`);
process.stdout.write(`\n${summary}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
