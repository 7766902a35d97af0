// `npm run bench [-- --quick] [-- --wrk] [-- SECTION ...]`: starts the platform on a fresh temporary store
// (ports 9787-9790, so it can run beside `npm start`), seeds what the chosen sections need, then drives a
// real load generator (autocannon; wrk with --wrk when it is on PATH) through the gateway, one row after
// another in this one run: the trivial route first and last, every other row also as a ratio to it.
// Prints a Markdown table and the issue's targets (PASS/MISS with the gap) and writes both, with the raw
// figures as JSON, to bench/results/. Sections: posts write sites login bulk memory (default), analytics
// leads (or `all`), fleet (5 content groups: 10,000 sites and 1,000,000 posts over four, a twin site in the
// fifth; a stack of its own: bench/fleet.mjs). Options: --quick (small sizes, 3 s rows), --duration S,
// --warmup S, --connections N.
// With `posts`, the read rows run again on a second stack whose rate-limiting bindings count in the isolate
// as production's do (bench/local-limiters.mjs; rows labelled "local limiters"); --no-local-limiters skips it.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPlatform } from "../scripts/platform.mjs";
import { root } from "../scripts/workers.mjs";
import { fleetRun } from "./fleet.mjs";
import { machineLine, round } from "./lib.mjs";
import { measure, wrkAvailable } from "./loadgen.mjs";
import { withLocalLimiters } from "./local-limiters.mjs";
import { workerdPid } from "./memory.mjs";
import {
  assertPortsFree,
  BENCH_PORT_OFFSET,
  benchPorts,
  LOCAL_LIMITERS_STACK_OFFSET,
  MEMORY_STACK_OFFSET,
} from "./ports.mjs";
import { checkTargets, renderReport } from "./report.mjs";
import { DEFAULT_SECTIONS, prepareSection, SECTIONS } from "./sections.mjs";
import { createTenant } from "./seed.mjs";
import { startMemory } from "./start-memory.mjs";

const USAGE = `npm run bench -- [--quick] [--wrk] [--no-local-limiters] [--duration S] [--warmup S] [--connections N] [--port-offset N] [SECTION...]
sections: ${SECTIONS.join(" ")} | all   (default: ${DEFAULT_SECTIONS.join(" ")})`;

export function parseArgs(argv) {
  const flags = new Map();
  const sections = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick" || a === "--wrk" || a === "--help" || a === "--no-local-limiters") flags.set(a, true);
    else if (a.startsWith("--")) {
      const [name, inline] = a.split("=", 2);
      flags.set(name, inline ?? argv[++i]);
    } else sections.push(a);
  }
  const quick = flags.has("--quick");
  const chosen = sections.includes("all") ? SECTIONS : sections.length ? sections : DEFAULT_SECTIONS;
  for (const s of chosen) if (!SECTIONS.includes(s)) throw new Error(`unknown section "${s}"\n${USAGE}`);
  const number = (name, fallback) => (flags.has(name) ? Number(flags.get(name)) : fallback);
  return {
    help: flags.has("--help"),
    quick,
    wrk: flags.has("--wrk"),
    // The posts rows again on a second stack whose rate-limiting bindings count in the isolate
    // (bench/local-limiters.mjs), beside the rows with Miniflare's emulation.
    localLimiters: !flags.has("--no-local-limiters"),
    sections: SECTIONS.filter((s) => chosen.includes(s)),
    sizes: quick ? [1_000, 5_000, 10_000] : [1_000, 10_000, 100_000],
    duration: number("--duration", quick ? 3 : 10),
    warmup: number("--warmup", quick ? 1 : 2),
    connections: number("--connections", 16),
    // Ports 8787+offset…: 9787-9790 by default, beside `npm start` and the browser tests (bench/ports.mjs).
    portOffset: number("--port-offset", BENCH_PORT_OFFSET),
    // What the key pools are sized for: the highest rate a read or a write row could reach here.
    maxRps: number("--max-rps", 4000),
    maxWriteRps: number("--max-write-rps", 400),
    loginAmount: quick ? 12 : 40,
    samplerAccounts: quick ? 4 : 12,
    importLines: quick ? 100 : 1_000,
    soakSeconds: number("--soak", quick ? 20 : 60),
  };
}

/** One row on `ctx`'s stack: warm-up, then the measured run; its rate and how many answers were not the expected. */
export async function runLoad(ctx, row) {
  const spec = {
    base: ctx.urls.gateway,
    connections: row.connections ?? ctx.options.connections,
    ...row.spec,
  };
  if (row.warmup !== false) await measure(ctx.tool, { ...spec, duration: ctx.options.warmup });
  const measured = await measure(
    ctx.tool,
    row.amount ? { ...spec, amount: row.amount } : { ...spec, duration: ctx.options.duration },
  );
  // wrk tells only how many answers were 4xx/5xx; autocannon gives every status.
  const expectedCount =
    measured.tool === "wrk"
      ? (row.expect ?? 200) >= 400
        ? measured.non2xx
        : measured.requests - measured.non2xx
      : row.expect
        ? (measured.statuses[row.expect] ?? 0)
        : Object.entries(measured.statuses)
            .filter(([status]) => status.startsWith("2"))
            .reduce((sum, [, n]) => sum + n, 0);
  const unexpected = measured.requests - expectedCount + measured.errors;
  const out = {
    id: row.id,
    label: row.label,
    expect: row.expect,
    unexpected,
    connections: spec.connections,
    ...measured,
  };
  process.stderr.write(
    `  ${row.label}: ${round(out.rps, 0)} req/s, p50 ${round(out.p50_ms, 1)} ms, p99 ${round(out.p99_ms, 1)} ms${unexpected ? `, ${unexpected} unexpected` : ""}\n`,
  );
  return out;
}

export const TRIVIAL = {
  id: "trivial",
  label: "GET /health (trivial route)",
  spec: { method: "GET", paths: ["/health"] },
};

/** The read rows measured again without the local emulation of the rate-limiting bindings. */
export const LOCAL_ROWS = ["list_ck_", "list_pk_", "detail_pk", "list_cold_ck"];

/**
 * The posts rows of the middle size on a second stack (its own ports and store) whose rate-limiting
 * bindings count in the isolate's memory, as production's location-local limiter does, each row a ratio
 * to that stack's own trivial route. Labelled "local limiters" in the report.
 */
async function localLimiterRows(options, tool, stem, log) {
  const persist = mkdtempSync(path.join(os.tmpdir(), "platform-bench-local-"));
  const workerLog = createWriteStream(`${stem}.local-limiters.workers.log`);
  log("local limiters: a second stack with the rate-limiting bindings counted in the isolate…");
  const { mf, urls } = await startPlatform({
    persist,
    portOffset: options.portOffset + LOCAL_LIMITERS_STACK_OFFSET,
    adjustWorker: withLocalLimiters,
    handleStructuredLogs: (entry) => workerLog.write(`${entry.message}\n`),
  });
  const middle = options.sizes[Math.min(1, options.sizes.length - 1)];
  const ctx = { mf, urls, options: { ...options, sizes: [middle] }, tool, seeding: {} };
  try {
    ctx.tenant = await createTenant(mf, urls);
    const { load } = await prepareSection("posts", ctx);
    const rows = [
      await runLoad(ctx, { ...TRIVIAL, id: "trivial_local", label: `${TRIVIAL.label}, local limiters` }),
    ];
    for (const row of load.filter((r) => LOCAL_ROWS.some((id) => r.id.startsWith(id)))) {
      const local = { ...row, id: `${row.id}_local`, label: `${row.label}, local limiters` };
      rows.push({ ...(await runLoad(ctx, local)), base: "trivial_local" });
    }
    return rows;
  } finally {
    await mf.dispose();
    workerLog.end();
    rmSync(persist, { recursive: true, force: true });
  }
}

/** The sections other than `fleet`, on the bench's main stack (one run of `startPlatform`). */
async function mainStack(options, tool, stem, log, sections, result) {
  const persist = mkdtempSync(path.join(os.tmpdir(), "platform-bench-"));
  // The Workers' own log lines (one per request and more) go to a file beside the results.
  const workerLog = createWriteStream(`${stem}.workers.log`);
  const { mf, urls } = await startPlatform({
    persist,
    portOffset: options.portOffset,
    handleStructuredLogs: (entry) => workerLog.write(`${entry.message}\n`),
  });
  const ctx = { mf, urls, options, tool, seeding: result.seeding, workerdPid: workerdPid() };
  result.workerd_pid = ctx.workerdPid;
  try {
    const started = performance.now();
    ctx.tenant = await createTenant(mf, urls);
    log("seeding…");
    const prepared = [];
    for (const name of sections) prepared.push(await prepareSection(name, ctx));
    ctx.seeding.total_seconds = round((performance.now() - started) / 1000, 1);
    log(`seeded in ${ctx.seeding.total_seconds} s; measuring…`);

    const trivial = TRIVIAL;
    result.load.push(await runLoad(ctx, trivial));
    for (const section of prepared)
      for (const row of section.load ?? []) result.load.push(await runLoad(ctx, row));
    for (const section of prepared) if (section.singles) result.singles.push(...(await section.singles()));
    for (const section of prepared) if (section.after) result.login_timing = await section.after(ctx);
    result.load.push(
      await runLoad(ctx, {
        ...trivial,
        id: "trivial_end",
        label: "GET /health (trivial route, again at the end)",
      }),
    );
  } finally {
    await mf.dispose();
    workerLog.end();
    rmSync(persist, { recursive: true, force: true });
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  let tool = "autocannon";
  if (options.wrk) {
    if (!wrkAvailable()) throw new Error("--wrk: wrk is not on PATH");
    tool = "wrk";
  }
  const stacks = benchPorts(options.portOffset);
  // The fleet section runs on a stack of its own (bench/fleet.mjs); the main stack only for the others.
  const mainSections = options.sections.filter((s) => s !== "fleet");
  const fleet = options.sections.includes("fleet");
  await assertPortsFree([
    ...(mainSections.length ? stacks.bench : []),
    ...(options.sections.includes("memory") ? stacks.memory : []),
    ...(options.localLimiters && options.sections.includes("posts") ? stacks.local_limiters : []),
    ...(fleet ? stacks.fleet : []),
  ]);
  const at = new Date().toISOString();
  const dir = path.join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  const stem = path.join(dir, `${at.replace(/[:.]/g, "-")}${options.quick ? "-quick" : ""}`);
  const log = (line) => process.stderr.write(`${line}\n`);
  log(`bench: ${options.sections.join(", ")} with ${tool}${options.quick ? " (--quick)" : ""}; starting…`);
  // `npm start`'s memory first, alone (its own ports: the bench's offset + 50, and its own store).
  const started_memory = options.sections.includes("memory")
    ? await startMemory({ portOffset: options.portOffset + MEMORY_STACK_OFFSET })
    : null;
  if (started_memory) log(`npm start: ${round(started_memory.total_mb, 0)} MB resident 10 s after ready`);
  const result = {
    at,
    machine: machineLine(),
    tool,
    options,
    workerd_pid: null,
    seeding: {},
    load: [],
    singles: [],
    start_memory: started_memory,
  };
  if (mainSections.length) await mainStack(options, tool, stem, log, mainSections, result);
  if (options.localLimiters && options.sections.includes("posts"))
    result.load.push(...(await localLimiterRows(options, tool, stem, log)));
  if (fleet) {
    const run = await fleetRun(options, tool, stem, log, runLoad, result.seeding);
    result.load.push(...run.load);
    result.fleet = run.summary;
  }
  // The raw figures first: a report that fails to render loses none of a long run.
  writeFileSync(`${stem}.json`, JSON.stringify(result, null, 2));
  result.targets = checkTargets(result);
  const report = renderReport(result);
  console.log(report);
  writeFileSync(`${stem}.json`, JSON.stringify(result, null, 2));
  writeFileSync(`${stem}.md`, `${report}\n`);
  log(`\nwritten: ${path.relative(root, stem)}.{md,json,workers.log}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error.stack ?? error);
    process.exit(1);
  });
}
