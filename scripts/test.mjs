#!/usr/bin/env node
/**
 * `npm test`: typecheck, lint and every vitest project (vitest.config.ts), in two phases so the two cores
 * stay busy:
 *   1. at once, five vitest processes: the `browser` project (Chromium and the platform mostly wait on
 *      each other; printed when it ends) and the other projects but `timing` split in four lanes of one
 *      runtime each (`LANES`; the first streamed, the others printed when they end). One vitest runs its
 *      projects one after another, and each switch of project leaves the cores idle while the next
 *      project's runtimes start (about 10 s each); lanes side by side fill each other's switches, and one
 *      runtime per project instead of two saves a runtime start (about 5.5 s of CPU) per project;
 *   2. then the `timing` project's samples (production password cost), and beside them, at the lowest
 *      priority (`nice -n 19`), the typecheck and lint (their output printed when they end). The timing
 *      project's vitest starts when the first part of phase 1 ends, so its start-up (about 12 s) overlaps
 *      phase 1; its files wait for a signal file that this script writes when phase 1 is over
 *      (`TEST_TIMING_GATE`, test/support/timing-gate.ts). The timing files run one at a time and keep one
 *      core mostly idle; the checks take that core and yield it at once to the timing processes whenever
 *      they want it (a niced task only gets what nice-0 tasks leave), so the samples see no competition,
 *      while phase 1 keeps both cores for the tests.
 * In a single `vitest run` the browser project (one file at a time) could only run after every other
 * project, alone (vitest puts a project without file parallelism in a group of its own, last).
 * Exits non-zero when any part failed; every part runs either way. With `TEST_REPORT_DIR=<dir>` each vitest
 * part also writes its JSON report (per-file start and end times, per-test durations) to
 * `<dir>/{lane-1,lane-2,lane-3,lane-4,browser,timing}.json`.
 *
 * `npm test -- <project> [<project> ...] [vitest options or file filters]`: the fast path for one area,
 * only vitest, only those projects (identity, content, sites, sites-fleet, gateway, e2e, unit, timing, structure,
 * deploy, browser), e.g. `npm test -- identity test/identity/login.security.test.ts`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { failedTests } from "./test-reports.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PROJECTS = [
  "identity",
  "content",
  "sites",
  "sites-fleet",
  "gateway",
  "e2e",
  "unit",
  "timing",
  "structure",
  "deploy",
  "browser",
];

const vitest = path.join(root, "node_modules/.bin/vitest");
/**
 * Phase 1's lanes, one vitest process each with one runtime at a time, balanced by the time each project's
 * files took in one lane on this machine. A lane is a ping-pong between vitest and its runtime and keeps a
 * core about two-thirds busy. The deploy project has a lane of its own: its files mostly wait (a stack
 * booted on free ports, a scheduled post's webhook within 90 s, a backup restored into a restarted stack,
 * wrangler's dry-run bundles), 191 s of files over a 362 s span at stop 42, so behind e2e and sites it made
 * the longest lane (587 s) while the whole run used about 1.5 of the two cores (user + sys 17 min in 11).
 * Measured after: wall 621 s against 625 s (the other lanes slow down by what the deploy lane gains).
 */
const LANES = [
  ["content", "structure", "sites-fleet"],
  ["identity", "gateway", "unit"],
  ["e2e", "sites"],
  ["deploy"],
];
const projectArgs = (names) => names.flatMap((name) => ["--project", name]);
/**
 * Where each vitest part writes its JSON report: TEST_REPORT_DIR when set (kept), else a fresh directory under
 * the system's temp dir. The summary reads them to name every failed test with the first line of its error, so
 * that the last lines of a run (all a CI log's tail may show) say what failed, not only in which lane.
 */
const reportDir =
  process.argv.length > 2
    ? process.env.TEST_REPORT_DIR
    : (process.env.TEST_REPORT_DIR ?? mkdtempSync(path.join(os.tmpdir(), "npm-test-")));
/** `vitest run` of the named projects (and its JSON report under reportDir as `<report>.json`). */
const vitestRun = (names, report) => [
  "run",
  ...projectArgs(names),
  ...(reportDir
    ? [
        "--reporter=default",
        "--reporter=json",
        `--outputFile.json=${path.resolve(reportDir, `${report}.json`)}`,
      ]
    : []),
];

/**
 * Runs a command; `quiet` collects its output instead of streaming it. Resolves with its exit status,
 * wall seconds and the collected output.
 */
function start(label, command, args, { quiet = false, env = {}, report } = {}) {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) =>
      resolve({
        label,
        ok: code === 0,
        status: signal ?? code,
        seconds: Math.round((Date.now() - began) / 1000),
        output: Buffer.concat(output).toString(),
        report,
      }),
    );
  });
}

function printCollected(result) {
  process.stdout.write(`\n──── ${result.label} (${result.seconds} s) ────\n${result.output}`);
}

async function everything() {
  const began = Date.now();
  const covered = new Set([...LANES.flat(), "browser", "timing"]);
  const missing = PROJECTS.filter((name) => !covered.has(name));
  if (missing.length > 0) throw new Error(`projects in no lane: ${missing.join(", ")}`);
  // The timing project's samples wait for this file (test/support/timing-gate.ts): its vitest starts as soon
  // as the first part of phase 1 ends, so its start-up overlaps the rest of phase 1.
  const gate = path.join(os.tmpdir(), `npm-test-timing-gate-${process.pid}`);
  rmSync(gate, { force: true });
  let timing;
  const startTiming = () => {
    timing ??= start("timing project", vitest, vitestRun(["timing"], "timing"), {
      quiet: true,
      env: { TEST_TIMING_GATE: gate },
      report: "timing",
    });
  };
  const browser = start("browser project", vitest, vitestRun(["browser"], "browser"), {
    quiet: true,
    report: "browser",
  });
  const laneRun = (names, i) => [...vitestRun(names, `lane-${i + 1}`), "--maxWorkers", "1"];
  const label = (i) => `lane ${i + 1}: ${LANES[i].join(", ")}`;
  // The first lane streams its output; the others print theirs when they end.
  const others = LANES.slice(1).map((names, i) =>
    start(label(i + 1), vitest, laneRun(names, i + 1), { quiet: true, report: `lane-${i + 2}` }),
  );
  const firstLane = start(label(0), vitest, laneRun(LANES[0], 0), { report: "lane-1" });
  for (const part of [browser, firstLane, ...others]) part.then(startTiming);
  const lanes = [await firstLane];
  for (const lane of others) {
    const done = await lane;
    printCollected(done);
    lanes.push(done);
  }
  const browserDone = await browser;
  printCollected(browserDone);
  // Phase 2: nothing else runs; the timing samples go, the checks beside them at the lowest priority.
  writeFileSync(gate, "open");
  const checks = start(
    "typecheck and lint",
    "nice",
    ["-n", "19", "sh", "-c", "npm run --silent typecheck && npm run --silent lint"],
    { quiet: true },
  );
  const timingDone = await timing;
  rmSync(gate, { force: true });
  printCollected(timingDone);
  const checksDone = await checks;
  printCollected(checksDone);
  const results = [browserDone, checksDone, ...lanes, timingDone];
  process.stdout.write("\n──── npm test ────\n");
  for (const r of results) {
    process.stdout.write(`${r.ok ? "passed" : `FAILED (${r.status})`}  ${r.label}  ${r.seconds} s\n`);
    if (!r.ok && r.report) {
      const failures = failedTests(path.join(reportDir, `${r.report}.json`), root);
      for (const line of failures) process.stdout.write(`  ✗ ${line}\n`);
      if (failures.length === 0)
        process.stdout.write("  (no failed test in its report: see its output above)\n");
    }
  }
  process.stdout.write(`wall ${Math.round((Date.now() - began) / 1000)} s\n`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

const args = process.argv.slice(2);
if (args.length === 0) {
  await everything();
} else {
  const known = new Set(PROJECTS);
  const result = spawnSync(vitest, ["run", ...args.flatMap((a) => (known.has(a) ? ["--project", a] : [a]))], {
    cwd: root,
    stdio: "inherit",
  });
  process.exit(result.status ?? 1);
}
