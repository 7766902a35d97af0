// The bench's printed report: the load table (each row also as a ratio to the trivial route of the same
// run), the single-request table (exports, import) and the issue's targets, each PASS or MISS with the gap.
import { median, round } from "./lib.mjs";

const num = (x, digits = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? "–" : round(x, digits).toLocaleString("en-US");

/** A Markdown table: the first column left-aligned, the others right-aligned unless `left`. */
function table(header, rows, left = false) {
  const align = header.map((_, i) => (i === 0 || left ? "---" : "---:"));
  const lines = [`| ${header.join(" | ")} |`, `|${align.join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

export function loadTable(rows, trivial) {
  // A row measured on another stack (the local limiters') is a ratio to that stack's own trivial route.
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const baseOf = (r) => (r.base && byId[r.base]) || trivial;
  return table(
    [
      "route",
      "req/s",
      "p50 ms",
      "p99 ms",
      "req/s ÷ trivial",
      "p50 × trivial",
      "p99 × trivial",
      "requests",
      "unexpected",
    ],
    rows.map((r) => [
      r.label,
      num(r.rps, 0),
      num(r.p50_ms, 1),
      num(r.p99_ms, 1),
      // No base when the run had no main stack (only the fleet's, whose rows each name theirs).
      num(baseOf(r) ? r.rps / baseOf(r).rps : null, 3),
      num(baseOf(r) ? r.p50_ms / baseOf(r).p50_ms : null, 1),
      num(baseOf(r) ? r.p99_ms / baseOf(r).p99_ms : null, 1),
      num(r.requests, 0),
      r.unexpected > 0 ? `**${r.unexpected}** ${statusNote(r)}` : "0",
    ]),
  );
}

function statusNote(r) {
  const expected = String(r.expect ?? "2");
  const bad = Object.entries(r.statuses ?? {}).filter(([s]) => !s.startsWith(expected));
  return bad.length ? `(${bad.map(([s, n]) => `${s}: ${n}`).join(", ")})` : "";
}

export function singleTable(singles) {
  return table(
    [
      "operation",
      "first byte ms",
      "total ms",
      "MB",
      "MB/s",
      "lines",
      "lines/s",
      "workerd RSS before MB",
      "workerd peak MB",
    ],
    singles.map((s) => [
      s.label,
      num(s.first_byte_ms, 0),
      num(s.total_ms, 0),
      num(s.bytes / 1e6, 2),
      num(s.mb_per_s ?? s.bytes / 1e6 / (s.total_ms / 1000), 2),
      num(s.lines, 0),
      num(s.lines_per_s ?? s.lines / (s.total_ms / 1000), 0),
      num(s.workerd_before_mb, 0),
      num(s.workerd_peak_mb, 0),
    ]),
  );
}

/**
 * The issue's targets against this run. Each: what is measured, the bound, PASS/MISS and, for a miss, by
 * how much (or "not measured" when its section did not run).
 */
export function checkTargets(result) {
  const rows = Object.fromEntries(result.load.map((r) => [r.id, r]));
  const singles = Object.fromEntries(result.singles.map((s) => [s.id, s]));
  const trivial = rows.trivial;
  const sizes = result.options.sizes;
  const [small, middle, large] = [sizes[0], sizes[Math.min(1, sizes.length - 1)], sizes[sizes.length - 1]];
  const targets = [];
  const add = (name, measured, pass, gap) =>
    targets.push({
      name,
      measured,
      result: measured === null ? "NOT RUN" : pass ? "PASS" : "MISS",
      gap: pass ? "" : gap,
    });
  const atLeast = (value, bound, unit = "") =>
    `${num(value, 3)}${unit} vs ≥ ${bound}${unit}: short by ${num(bound - value, 3)}${unit} (${num(bound / value, 2)}x needed)`;

  // Issue 25's ratios to the public origin's trivial route.
  const ratioTarget = (label, row, bound) => {
    const base = row?.base ? rows[row.base] : trivial;
    const ratio = row && base ? row.rps / base.rps : null;
    add(
      `${label} req/s ≥ ${bound} × trivial route`,
      ratio === null ? null : `${num(ratio, 3)}x (${num(row.rps, 0)} vs ${num(base.rps, 0)} req/s)`,
      ratio !== null && ratio >= bound,
      ratio === null ? "" : atLeast(ratio, bound, "x"),
    );
  };
  const at = middle.toLocaleString("en-US");
  ratioTarget(`Warm list (ck_, ${at} posts; one emulated rate limiter)`, rows[`list_ck_${middle}`], 0.5);
  ratioTarget(`Warm list (pk_, ${at} posts; two emulated rate limiters)`, rows[`list_pk_${middle}`], 0.5);
  ratioTarget(
    `Cold list (ck_, ${at} posts, a new since each; one emulated rate limiter)`,
    rows.list_cold_ck,
    0.25,
  );
  ratioTarget("One post by slug (pk_; two emulated rate limiters)", rows.detail_pk, 0.4);
  // The same rows on the stack whose rate-limiting bindings count in the isolate (bench/local-limiters.mjs).
  const local = "local limiters, counted in the isolate as in production";
  ratioTarget(`Warm list (ck_, ${at} posts; ${local})`, rows[`list_ck_${middle}_local`], 0.5);
  ratioTarget(`Warm list (pk_, ${at} posts; ${local})`, rows[`list_pk_${middle}_local`], 0.5);
  ratioTarget(`Cold list (ck_, ${at} posts; ${local})`, rows.list_cold_ck_local, 0.25);
  ratioTarget(`One post by slug (pk_; ${local})`, rows.detail_pk_local, 0.4);
  ratioTarget("POST /v1/posts (ck_)", rows.create_post, 0.12);
  {
    const start = result.start_memory;
    add(
      "npm start resident memory (Node + every child), 10 s after ready ≤ 600 MB",
      start ? `${num(start.total_mb, 0)} MB` : null,
      start && start.total_mb <= 600,
      start ? `${num(start.total_mb - 600, 0)} MB over` : "",
    );
    const soak = singles.soak;
    add(
      "Cold list soak: workerd growth over the second half ≤ 20 MB (bounded caches)",
      soak ? `+${num(soak.last_half_growth_mb, 1)} MB (+${num(soak.growth_mb, 1)} MB in all)` : null,
      soak && soak.last_half_growth_mb <= 20,
      soak ? `${num(soak.last_half_growth_mb - 20, 1)} MB over` : "",
    );
  }
  for (const kind of ["pk_", "ck_"]) {
    const a = rows[`list_${kind}${small}`];
    const b = rows[`list_${kind}${large}`];
    const ratio = a && b ? a.rps / b.rps : null;
    add(
      `List at ${large.toLocaleString("en-US")} posts within 1.1x of ${small.toLocaleString("en-US")} (${kind}, req/s)`,
      ratio === null ? null : `${num(ratio, 3)}x slower (${num(b.rps, 0)} vs ${num(a.rps, 0)} req/s)`,
      ratio !== null && ratio <= 1.1,
      ratio === null ? "" : `${num(ratio, 3)}x vs ≤ 1.1x: over by ${num(ratio - 1.1, 3)}x`,
    );
  }
  {
    const batch = rows.sites_batch;
    const one = rows.sites_one;
    const ratio = batch && one ? batch.p50_ms / one.p50_ms : null;
    add(
      "Batch of 200 sites within 2x of one GET (p50)",
      ratio === null ? null : `${num(ratio, 3)}x (${num(batch.p50_ms, 2)} vs ${num(one.p50_ms, 2)} ms)`,
      ratio !== null && ratio <= 2,
      ratio === null ? "" : `${num(ratio, 3)}x vs ≤ 2x: over by ${num(ratio - 2, 3)}x`,
    );
  }
  {
    const exp = singles[`export_${large}`];
    add(
      `Export first byte < 1 s at ${large.toLocaleString("en-US")} posts`,
      exp ? `${num(exp.first_byte_ms, 0)} ms` : null,
      exp && exp.first_byte_ms < 1000,
      exp ? `${num(exp.first_byte_ms - 1000, 0)} ms over` : "",
    );
    const small2 = singles[`export_${middle}`];
    let growth = null;
    if (exp && small2 && exp.workerd_peak_mb !== null && small2.workerd_peak_mb !== null) {
      growth = {
        large: exp.workerd_peak_mb - exp.workerd_before_mb,
        small: small2.workerd_peak_mb - small2.workerd_before_mb,
      };
    }
    // Flat: ten times the rows may not cost more than twice the growth (plus 8 MB of allocator noise).
    const bound = growth ? Math.max(2 * growth.small, 0) + 8 : null;
    add(
      `Export memory flat in rows (workerd peak growth, ${large.toLocaleString("en-US")} vs ${middle.toLocaleString("en-US")} posts)`,
      growth ? `+${num(growth.large, 1)} MB vs +${num(growth.small, 1)} MB` : null,
      growth && growth.large <= bound,
      growth
        ? `+${num(growth.large, 1)} MB vs ≤ +${num(bound, 1)} MB: over by ${num(growth.large - bound, 1)} MB`
        : "",
    );
  }
  {
    const right = rows.login_right;
    add(
      "login/start p50 ≤ 250 ms (right password, scrypt N=2^14 r=8 p=5)",
      right ? `${num(right.p50_ms, 0)} ms` : null,
      right && right.p50_ms <= 250,
      right ? `${num(right.p50_ms - 250, 0)} ms over` : "",
    );
    const sample = result.login_timing;
    const ratio = sample ? sample.ratio_p50 : null;
    add(
      "Unknown / wrong-password median ratio within 0.9-1.1 (interleaved)",
      ratio === null
        ? null
        : `${num(ratio, 3)} (${num(sample.unknown.p50_ms, 0)} vs ${num(sample.wrong.p50_ms, 0)} ms)`,
      ratio !== null && ratio >= 0.9 && ratio <= 1.1,
      ratio === null
        ? ""
        : ratio < 0.9
          ? `${num(0.9 - ratio, 3)} below 0.9`
          : `${num(ratio - 1.1, 3)} above 1.1`,
    );
  }
  fleetTargets(result, add);
  {
    const dirty = result.load.filter((r) => r.unexpected > 0);
    add(
      "Every row answered as expected (2xx; 401 for refusals): no quota or error distorts a figure",
      `${dirty.length} row(s) with other answers`,
      dirty.length === 0,
      dirty.map((r) => `${r.label}: ${r.unexpected}`).join("; "),
    );
  }
  return targets;
}

/** Within how much of its group alone a fleet row must stay (issue 38): ratio to ratio. */
export const FLEET_BOUND = 1.25;
const FLEET_ROWS = [
  ["cold", "Cold list (ck_, a new since each)"],
  ["detail", "One post by slug (pk_)"],
  ["post", "POST /v1/posts (ck_)"],
];

/**
 * The fleet's slowdown of one row kind over its rounds (bench/fleet.mjs): in each round the twin's ratio to
 * the round's trivial route ("one", alone in its group) over the measured site's in the fleet; returns the
 * medians of the two ratios and of the rounds' slowdowns, and each round's slowdown, or null when no round
 * has both rows.
 */
export function fleetSlowdown(load, kind) {
  const byId = Object.fromEntries(load.map((r) => [r.id, r]));
  const rounds = [];
  for (let r = 0; byId[`fleet_trivial_r${r}`]; r++) {
    const ratio = (phase) => {
      const row = byId[`fleet_${kind}_${phase}_r${r}`];
      const base = row && byId[row.base];
      return row && base && base.rps > 0 ? row.rps / base.rps : null;
    };
    const one = ratio("one");
    const fleet = ratio("fleet");
    if (one !== null && fleet) rounds.push({ one, fleet, slowdown: one / fleet });
  }
  if (rounds.length === 0) return null;
  return {
    one: median(rounds.map((x) => x.one)),
    fleet: median(rounds.map((x) => x.fleet)),
    slowdown: median(rounds.map((x) => x.slowdown)),
    rounds: rounds.map((x) => x.slowdown),
  };
}

/** Whether a measured move kept its promises: done, no accepted write lost, every refusal a 503 with Retry-After. */
export function moveProblems(move) {
  const problems = [];
  if (move.state !== "done")
    problems.push(`ended ${move.state ?? "unknown"} (${move.phase ?? "?"}): ${move.error ?? ""}`);
  if (move.accepted_present !== move.accepted)
    problems.push(
      `${move.accepted - move.accepted_present} accepted write(s) missing from ${move.group_after}`,
    );
  if (move.accepted_while_fenced > 0)
    problems.push(
      `${move.accepted_while_fenced} write(s) accepted while the mover had fenced the site (a ${move.fenced_window_ms} ms window seen by its progress): the fence did not refuse them`,
    );
  if (move.other > 0)
    problems.push(`${move.other} answer(s) neither 201 nor 503: ${JSON.stringify(move.other_statuses)}`);
  if (move.refused_without_retry_after > 0)
    problems.push(`${move.refused_without_retry_after} 503(s) without Retry-After`);
  if (move.source_rows_left > 0) problems.push(`${move.source_rows_left} post(s) left in ${move.from}`);
  return problems;
}

function fleetTargets(result, add) {
  const fleet = result.fleet;
  const scale = fleet
    ? `${fleet.sites.toLocaleString("en-US")} sites, ${fleet.posts.toLocaleString("en-US")} posts, 4 groups`
    : "10,000 sites, 1,000,000 posts, 4 groups";
  for (const [kind, label] of FLEET_ROWS) {
    const s = fleetSlowdown(result.load, kind);
    add(
      `Fleet (${scale}): ${label} in the fullest group within ${FLEET_BOUND}x of a twin site alone in a group (ratios to the trivial route, median of the rounds)`,
      s
        ? `${num(s.slowdown, 3)}x (${num(s.one, 3)} alone vs ${num(s.fleet, 3)} in the fleet; rounds ${s.rounds.map((x) => `${num(x, 2)}x`).join(", ")})`
        : null,
      s !== null && s.slowdown <= FLEET_BOUND,
      s ? `${num(s.slowdown, 3)}x vs ≤ ${FLEET_BOUND}x: over by ${num(s.slowdown - FLEET_BOUND, 3)}x` : "",
    );
  }
  const move = fleet?.move;
  const problems = move ? moveProblems(move) : [];
  add(
    `Fleet: move of a ${fleet ? fleet.site_posts.toLocaleString("en-US") : "10,000"}-post site under writes: done, every accepted write in its new group, every refusal a 503 with Retry-After`,
    move
      ? `switch ${num(move.switch_seconds, 1)} s, done ${num(move.done_seconds, 1)} s; longest refusal ${num(move.longest_refusal_ms, 0)} ms (mover's own: ${num(move.mover_longest_refusal_ms, 0)} ms; longest silence of the writers ${num(move.longest_silence_ms, 0)} ms); ${move.accepted} accepted, ${move.refused} refused`
      : null,
    move && problems.length === 0,
    problems.join("; "),
  );
}

export function targetTable(targets) {
  return table(
    ["target", "measured", "result", "gap"],
    targets.map((t) => [t.name, t.measured ?? "–", t.result, t.gap || ""]),
    true,
  );
}

export function renderReport(result) {
  const trivial = result.load.find((r) => r.id === "trivial");
  const parts = [
    `# Bench ${result.at}`,
    "",
    `${result.machine}; load generator ${result.tool}, ${result.options.connections} connections, ${result.options.duration} s a row after ${result.options.warmup} s of warm-up${result.options.quick ? " (--quick)" : ""}; workerd pid ${result.workerd_pid ?? "not found"}.`,
    "",
    loadTable(result.load, trivial),
  ];
  if (result.fleet) {
    const f = result.fleet;
    const m = f.move;
    const by = (o) =>
      Object.entries(o)
        .map(([g, n]) => `${g} ${num(n, 0)}`)
        .join(", ");
    parts.push(
      "",
      `Fleet: ${f.groups.length} content groups and the twin's; sites by group ${by(f.sites_by_group)}; posts by group ${by(f.posts_by_group)} (bulk seed ${num(f.bulk_seconds, 0)} s). The measured site (${num(f.site_posts, 0)} posts before the POST rows) is in ${f.measured_group}, the fullest of ${f.groups.join(", ")}; its twin, seeded the same way, alone in ${f.twin_group}. Each row kind is measured in ${f.rounds} rounds: the trivial route, then the twin and the measured site back to back (the twin first in odd-numbered rounds); a row's slowdown is the median of its rounds' ratios.`,
      "",
      `Move of a ${num(f.site_posts, 0)}-post site (${num(m.site_posts, 0)} posts after it) from ${m.from} to ${m.to} under ${m.writes} paced writes: ${m.state}; writes accepted again after ${num(m.switch_seconds, 1)} s (the switch), done after ${num(m.done_seconds, 1)} s (the old rows kept for the routes' TTL, then purged); ${num(m.rows_copied, 0)} rows copied, ${num(m.rows_deleted, 0)} deleted; longest refusal ${num(m.longest_refusal_ms, 0)} ms over ${m.refusal_runs} run(s) (the mover's own count ${num(m.mover_longest_refusal_ms, 0)} ms); ${m.accepted} accepted (${m.accepted_present} found in ${m.group_after}; ${m.accepted_while_fenced} of them inside the ${num(m.fenced_window_ms, 0)} ms the mover's progress showed the site fenced), ${m.refused} refused with 503, ${m.other} other; the slowest write took ${num(m.slowest_write_ms, 0)} ms, the longest silence of all writers ${num(m.longest_silence_ms, 0)} ms.`,
    );
  }
  const singles = result.singles.filter((s) => s.id !== "soak");
  if (singles.length) parts.push("", singleTable(singles));
  if (result.start_memory) {
    const m = result.start_memory;
    const each = m.processes.map((p) => `${p.comm} ${num(p.rss_mb, 0)}`).join(", ");
    parts.push(
      "",
      `npm start, ${m.settle_seconds} s after ready: ${num(m.total_mb, 0)} MB resident (${each}).`,
    );
  }
  const soak = result.singles.find((s) => s.id === "soak");
  if (soak) {
    parts.push(
      "",
      `${soak.label}: ${soak.rss_samples_mb.map((x) => num(x, 0)).join(" → ")} (+${num(soak.growth_mb, 1)} MB; second half +${num(soak.last_half_growth_mb, 1)} MB).`,
    );
  }
  if (result.login_timing) {
    const t = result.login_timing;
    parts.push(
      "",
      `login/start refusals, interleaved (${t.unknown.n} + ${t.wrong.n} samples): unknown e-mail p50 ${num(t.unknown.p50_ms, 1)} ms, wrong password p50 ${num(t.wrong.p50_ms, 1)} ms, ratio ${num(t.ratio_p50, 3)}.`,
    );
  }
  parts.push("", targetTable(result.targets));
  parts.push(
    "",
    `Seeding: ${Object.entries(result.seeding)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
  );
  return parts.join("\n");
}
