// `npm run bench:ab -- REV [--rounds N] [--only ID,…] [--no-local-limiters] [--quick] [--duration S] [--warmup S]`: today's rows
// of the bench (`posts` and `write`, then the read rows with local limiters) measured before and after a
// change, paired. A git worktree of REV (the "before", made under the system's temp directory on first use,
// sharing this tree's node_modules) and this tree (the "after") each start a stack of their own at the same
// time (ports: the bench's offset + 200 and + 250), each seeded by its own tree's bench code; then each row
// runs on both stacks back to back, which one first alternating by row and round, in N rounds (default 3);
// --only keeps the rows whose ids start so (`trivial`, `list_pk_`, …), --no-local-limiters the first stacks.
// A row's figure is the median of its rounds' after ÷ before req/s: both sides of a round meet the same
// machine within seconds, where two separate bench runs here differ by up to 2x on the same code.
// Writes bench/results/<time>-ab.{md,json}.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "../scripts/workers.mjs";
import { machineLine, median } from "./lib.mjs";
import { AB_STACK_OFFSETS, assertPortsFree, BENCH_PORT_OFFSET, benchPorts } from "./ports.mjs";
import { LOCAL_ROWS, runLoad, TRIVIAL } from "./run.mjs";

/** Which side runs first for row `index` of round `round` (alternating both ways). */
export function firstSide(index, roundNo) {
  return (index + roundNo) % 2 === 0 ? "before" : "after";
}

/**
 * A row's spec for round `roundNo` of `rounds`: its paths rotated by a 1/rounds share, so a row of many
 * paths (a new `since` each request) starts each round on paths no earlier round asked.
 */
export function roundSpec(spec, roundNo, rounds) {
  const shift = Math.floor((spec.paths.length / rounds) * roundNo);
  return shift === 0 ? spec : { ...spec, paths: [...spec.paths.slice(shift), ...spec.paths.slice(0, shift)] };
}

/**
 * The figures of one row: each round's req/s on both sides and their ratio; the median ratio. `runs`:
 * [{ round, side, rps }].
 */
export function pairedFigures(runs) {
  const rounds = [...new Set(runs.map((r) => r.round))].sort((a, b) => a - b);
  const pairs = rounds
    .map((n) => {
      const before = runs.find((r) => r.round === n && r.side === "before")?.rps;
      const after = runs.find((r) => r.round === n && r.side === "after")?.rps;
      return before && after !== undefined ? { before, after, ratio: after / before } : null;
    })
    .filter(Boolean);
  if (pairs.length === 0) return null;
  return { pairs, median: median(pairs.map((p) => p.ratio)) };
}

/** A worktree of `rev` ready to run (this tree's node_modules, the Workers' .dev.vars): its path. */
function worktreeOf(rev) {
  const sha = execFileSync("git", ["rev-parse", "--verify", `${rev}^{commit}`], { cwd: root })
    .toString()
    .trim();
  const dir = path.join(os.tmpdir(), `platform-ab-${sha.slice(0, 12)}`);
  if (!existsSync(path.join(dir, "package.json"))) {
    execFileSync("git", ["worktree", "add", "--force", "--detach", dir, sha], { cwd: root, stdio: "ignore" });
  }
  if (!existsSync(path.join(dir, "node_modules")))
    symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  for (const worker of ["content", "identity", "sites"]) {
    const vars = path.join(root, "workers", worker, ".dev.vars");
    const target = path.join(dir, "workers", worker, ".dev.vars");
    if (existsSync(vars) && existsSync(path.dirname(target)) && !existsSync(target))
      copyFileSync(vars, target);
  }
  return { dir, sha };
}

/** The bench modules of the tree at `dir` (its own seeding and rows). */
async function treeModules(dir) {
  const load = (file) => import(pathToFileURL(path.join(dir, file)).href);
  const [platform, run, sections, seed, limiters] = await Promise.all([
    load("scripts/platform.mjs"),
    load("bench/run.mjs"),
    load("bench/sections.mjs"),
    load("bench/seed.mjs"),
    load("bench/local-limiters.mjs"),
  ]);
  return { platform, run, sections, seed, limiters };
}

/** Starts a tree's stack and prepares its rows: { ctx (runLoad's), rows, dispose }. */
async function prepareSide(mods, { offset, argv, local, rounds, log, side }) {
  const options = mods.run.parseArgs(argv);
  // Every row runs `rounds` times on the same keys: pools sized for it.
  options.maxRps *= rounds;
  options.maxWriteRps *= rounds;
  if (local) options.sizes = [options.sizes[Math.min(1, options.sizes.length - 1)]];
  const persist = mkdtempSync(path.join(os.tmpdir(), `platform-ab-${side}-`));
  const { mf, urls } = await mods.platform.startPlatform({
    persist,
    portOffset: offset,
    ...(local ? { adjustWorker: mods.limiters.withLocalLimiters } : {}),
    handleStructuredLogs: () => {},
  });
  const dispose = async () => {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  };
  try {
    const ctx = { mf, urls, options, tool: "autocannon", seeding: {} };
    ctx.tenant = await mods.seed.createTenant(mf, urls);
    const rows = [TRIVIAL];
    for (const name of local ? ["posts"] : ["posts", "write"]) {
      const { load } = await mods.sections.prepareSection(name, ctx);
      rows.push(...(local ? load.filter((r) => LOCAL_ROWS.some((id) => r.id.startsWith(id))) : load));
    }
    log(`  ${side}: ${rows.length} rows seeded (${JSON.stringify(ctx.seeding)})`);
    return { ctx, rows, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function measurePaired(variant, sides, { rounds, only, log }) {
  const byId = (side) => Object.fromEntries(sides[side].rows.map((r) => [r.id, r]));
  const rows = { before: byId("before"), after: byId("after") };
  const ids = sides.after.rows
    .map((r) => r.id)
    .filter((id) => rows.before[id] && (!only || only.some((o) => id.startsWith(o))));
  const unpaired = [
    ...sides.before.rows.filter((r) => !rows.after[r.id]).map((r) => `before only: ${r.id}`),
    ...sides.after.rows.filter((r) => !rows.before[r.id]).map((r) => `after only: ${r.id}`),
  ];
  const runs = [];
  for (let n = 0; n < rounds; n++) {
    for (const [index, id] of ids.entries()) {
      const first = firstSide(index, n);
      for (const side of first === "before" ? ["before", "after"] : ["after", "before"]) {
        const row = rows[side][id];
        log(`  ${variant} r${n + 1} ${side}:`);
        const m = await runLoad(sides[side].ctx, { ...row, spec: roundSpec(row.spec, n, rounds) });
        runs.push({ variant, id, label: row.label, round: n, side, rps: m.rps, unexpected: m.unexpected });
      }
    }
  }
  return {
    unpaired,
    rows: ids.map((id) => ({
      variant,
      id,
      label: rows.after[id].label,
      unexpected: runs.filter((r) => r.id === id).reduce((a, r) => a + r.unexpected, 0),
      ...pairedFigures(runs.filter((r) => r.id === id)),
    })),
  };
}

/** The report: a row per route, each round's after ÷ before and the median; the rows under `bound` named. */
export function renderAb(result, bound = 0.9) {
  const num = (x, d) => (x === null || x === undefined ? "–" : Number(x.toFixed(d)).toLocaleString("en-US"));
  const lines = [
    `# Paired bench ${result.at}: ${result.before.rev} (${result.before.sha.slice(0, 7)}) → this tree (${result.after.sha.slice(0, 7)})`,
    "",
    `${result.machine}; ${result.rounds} rounds, ${result.options.duration} s a row after ${result.options.warmup} s of warm-up, both stacks started together, each row on both back to back (which first alternating).`,
    "",
    "| route | before req/s (rounds) | after req/s (rounds) | after ÷ before (rounds) | median | unexpected |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const r of result.rows) {
    const label = r.variant === "local" ? `${r.label}, local limiters` : r.label;
    const pairs = r.pairs ?? [];
    lines.push(
      `| ${label} | ${pairs.map((p) => num(p.before, 0)).join(" / ")} | ${pairs.map((p) => num(p.after, 0)).join(" / ")} | ${pairs.map((p) => num(p.ratio, 2)).join(" / ")} | ${num(r.median, 2)}x | ${r.unexpected} |`,
    );
  }
  const under = result.rows.filter((r) => r.median !== undefined && r.median < bound);
  lines.push(
    "",
    under.length
      ? `Below ${bound}x of before: ${under.map((r) => `${r.label}${r.variant === "local" ? " (local limiters)" : ""} ${num(r.median, 2)}x`).join("; ")}.`
      : `No row below ${bound}x of before.`,
  );
  if (result.unpaired.length) lines.push("", `Not paired: ${result.unpaired.join("; ")}.`);
  return lines.join("\n");
}

export function parseAbArgs(argv) {
  const out = {
    rev: null,
    rounds: 3,
    rest: [],
    portOffset: BENCH_PORT_OFFSET,
    quick: false,
    only: null,
    local: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--rounds") out.rounds = Number(argv[++i]);
    else if (a === "--port-offset") out.portOffset = Number(argv[++i]);
    else if (a === "--only") out.only = argv[++i].split(",");
    else if (a === "--no-local-limiters") out.local = false;
    else if (a === "--quick") {
      out.quick = true;
      out.rest.push(a);
    } else if (a.startsWith("--")) out.rest.push(a, argv[++i]);
    else if (!out.rev) out.rev = a;
    else throw new Error(`one revision only (got ${out.rev} and ${a})`);
  }
  if (!out.rev)
    throw new Error(
      "usage: npm run bench:ab -- REV [--rounds N] [--only ID,…] [--no-local-limiters] [--quick] [--duration S] [--warmup S]",
    );
  if (!Number.isInteger(out.rounds) || out.rounds < 1) throw new Error("--rounds: a whole number from 1");
  return out;
}

async function main() {
  const args = parseAbArgs(process.argv.slice(2));
  const log = (line) => process.stderr.write(`${line}\n`);
  const offsets = {
    before: args.portOffset + AB_STACK_OFFSETS.before,
    after: args.portOffset + AB_STACK_OFFSETS.after,
  };
  const ports = benchPorts(args.portOffset);
  await assertPortsFree([...ports.ab_before, ...ports.ab_after]);
  const before = worktreeOf(args.rev);
  const afterSha = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root }).toString().trim();
  const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: root }).toString().trim() !== "";
  log(
    `bench:ab: ${args.rev} (${before.dir}) → this tree${dirty ? " (with uncommitted changes)" : ""}, ${args.rounds} rounds`,
  );
  const mods = { before: await treeModules(before.dir), after: await treeModules(root) };
  const at = new Date().toISOString();
  const result = {
    at,
    machine: machineLine(),
    before: { rev: args.rev, sha: before.sha },
    after: { sha: afterSha, dirty },
    rounds: args.rounds,
    options: mods.after.run.parseArgs(args.rest),
    rows: [],
    unpaired: [],
  };
  for (const local of args.local ? [false, true] : [false]) {
    const variant = local ? "local" : "emulated";
    log(`${variant} limiters: both stacks…`);
    const sides = {};
    try {
      for (const side of ["before", "after"]) {
        sides[side] = await prepareSide(mods[side], {
          offset: offsets[side],
          argv: args.rest,
          local,
          rounds: args.rounds,
          log,
          side,
        });
      }
      const measured = await measurePaired(variant, sides, { rounds: args.rounds, only: args.only, log });
      result.rows.push(...measured.rows);
      result.unpaired.push(...measured.unpaired);
    } finally {
      for (const side of Object.values(sides)) await side.dispose();
    }
  }
  const dir = path.join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  const stem = path.join(dir, `${at.replace(/[:.]/g, "-")}${args.quick ? "-quick" : ""}-ab`);
  const report = renderAb(result);
  console.log(report);
  writeFileSync(`${stem}.json`, JSON.stringify(result, null, 2));
  writeFileSync(`${stem}.md`, `${report}\n`);
  log(`\nwritten: ${path.relative(root, stem)}.{md,json}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error.stack ?? error);
      process.exit(1);
    },
  );
}
