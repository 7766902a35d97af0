#!/usr/bin/env node
/**
 * `npm test`: typecheck, lint and every vitest project (vitest.config.ts), in two phases so the two cores
 * stay busy:
 *   1. at once: the `browser` project in a vitest of its own (Chromium and the platform mostly wait on each
 *      other; printed when it ends) and every other project but `timing` (streamed);
 *   2. then the `timing` project (production password cost), and beside it, at the lowest priority
 *      (`nice -n 19`), the typecheck and lint (their output printed when they end). The timing files run one
 *      at a time and keep one core mostly idle; the checks take that core and yield it at once to the
 *      timing processes whenever they want it (a niced task only gets what nice-0 tasks leave), so the
 *      samples see no competition, while phase 1 keeps both cores for the tests.
 * In a single `vitest run` the browser project (one file at a time) could only run after every other
 * project, alone (vitest puts a project without file parallelism in a group of its own, last).
 * Exits non-zero when any part failed; every part runs either way. With `TEST_REPORT_DIR=<dir>` each vitest
 * part also writes its JSON report (per-file start and end times, per-test durations) to
 * `<dir>/{main,browser,timing}.json`.
 *
 * `npm test -- <project> [<project> ...] [vitest options or file filters]`: the fast path for one area,
 * only vitest, only those projects (identity, content, sites, sites-fleet, gateway, e2e, unit, timing, structure,
 * deploy, browser), e.g. `npm test -- identity test/identity/login.security.test.ts`.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
const projectArgs = (names) => names.flatMap((name) => ["--project", name]);
const reportDir = process.env.TEST_REPORT_DIR;
/** `vitest run` of the named projects (and its JSON report under TEST_REPORT_DIR as `<report>.json`). */
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
function start(label, command, args, { quiet = false } = {}) {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
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
      }),
    );
  });
}

function printCollected(result) {
  process.stdout.write(`\n──── ${result.label} (${result.seconds} s) ────\n${result.output}`);
}

async function everything() {
  const began = Date.now();
  const browser = start("browser project", vitest, vitestRun(["browser"], "browser"), { quiet: true });
  const rest = PROJECTS.filter((name) => name !== "browser" && name !== "timing");
  const main = await start(`projects ${rest.join(", ")}`, vitest, vitestRun(rest, "main"));
  const browserDone = await browser;
  printCollected(browserDone);
  process.stdout.write("\n──── timing project (the typecheck and lint beside it, niced) ────\n");
  const checks = start(
    "typecheck and lint",
    "nice",
    ["-n", "19", "sh", "-c", "npm run --silent typecheck && npm run --silent lint"],
    { quiet: true },
  );
  const timing = await start("timing project", vitest, vitestRun(["timing"], "timing"));
  const checksDone = await checks;
  printCollected(checksDone);
  const collected = [browserDone, checksDone];
  const results = [...collected, main, timing];
  process.stdout.write("\n──── npm test ────\n");
  for (const r of results)
    process.stdout.write(`${r.ok ? "passed" : `FAILED (${r.status})`}  ${r.label}  ${r.seconds} s\n`);
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
