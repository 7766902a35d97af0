// The bench's `fleet` section (issue 38, "Measured in npm run bench"): content on 4 site groups, seeded
// with 10,000 sites and 1,000,000 posts by the bulk path (bench/fleet-seed.mjs; --quick: 200 sites, 20,000
// posts), measured on a stack of its own (ports: the bench's offset + FLEET_STACK_OFFSET, its own store).
//
// The stack runs a fifth group that holds one site only, the "twin": 10,000 posts, created and seeded as the
// `posts` section seeds its sites. The measured site, seeded the same way, sits in the fullest of the four
// fleet groups. Each row kind (cold list with a new `since` each request, one post by slug with pk_, POST
// /v1/posts) is measured in FLEET_ROUNDS rounds: the trivial route, then the kind on the twin ("one") and on
// the measured site ("fleet") back to back, which goes first alternating by round, each read on slugs and
// `since` values of its own so nothing is answered from a cache. The slowdown of a round is the twin's ratio to
// the round's trivial route over the measured site's; the target is the rounds' median within 1.25x. (Until
// stop 46 the same site was measured before and after the bulk seed, minutes apart: the trivial route's rate
// moved 24% between the two phases, more than the fleet moved the site's own.)
//
// Then the move: a second site of 10,000 posts is moved into the fullest group through content's RPC
// (`startSiteMove`, as the sites operator route calls it), while writers post to it and record every
// answer: the move's duration (to the switch, and to done after the old rows' purge), the longest run of
// refused writes (from the first 503 of a run to the next accepted write), and a check that every accepted
// write is in the site's new group and every refused one was a 503 with Retry-After.
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { groupBindingName, groupDatabaseName } from "../scripts/databases.mjs";
import { applyMigrations } from "../scripts/migrate.mjs";
import { startPlatform } from "../scripts/platform.mjs";
import { groupPostCounts, seedFleet } from "./fleet-seed.mjs";
import { round } from "./lib.mjs";
import { FLEET_STACK_OFFSET } from "./ports.mjs";
import { coldPaths, poolSize } from "./sections.mjs";
import {
  createKeys,
  createSite,
  createTenant,
  ORIGIN,
  postBody,
  READ_SCOPES,
  seedPosts,
  WRITE_SCOPES,
} from "./seed.mjs";

/** The fleet stack's content groups: the twin's (whichever the placement rule gives it) and the fleet's four. */
export const STACK_GROUPS = ["g000", "g001", "g002", "g003", "g004"];
/** Rounds of each row kind (twin and measured site back to back in each). */
export const FLEET_ROUNDS = 3;
/** The row kinds compared, in the order of a round. */
export const FLEET_KINDS = ["cold", "detail", "post"];

/** The fleet's sizes: the issue's, and --quick's (checked in a minute or two). */
export function fleetScale(quick) {
  return quick
    ? { sites: 200, posts: 20_000, sitePosts: 2_000, moveWriters: 4, moveTimeoutS: 240 }
    : { sites: 10_000, posts: 1_000_000, sitePosts: 10_000, moveWriters: 4, moveTimeoutS: 600 };
}

/** Miniflare options of the content Worker with `groups` as its site groups (DB_G00n each, CONTENT_GROUPS). */
export function withGroups(groups) {
  return (options) => {
    if (options.name !== "content") return options;
    const d1 = { ...(options.d1Databases ?? {}) };
    for (const g of groups) d1[groupBindingName(g)] = { id: groupDatabaseName(g) };
    return {
      ...options,
      d1Databases: d1,
      bindings: { ...options.bindings, CONTENT_GROUPS: groups.join(",") },
    };
  };
}

const fmt = (n) => n.toLocaleString("en-US");
const bearer = (keys) => ({ authorization: keys.map((k) => `Bearer ${k}`) });

/** `count` published slugs of a seeded site from post-`from` on (every 20th seeded post is a draft). */
export function publishedSlugs(from, count) {
  const slugs = [];
  for (let i = from; slugs.length < count; i++) if (i % 20 !== 0) slugs.push(`post-${i}`);
  return slugs;
}

/**
 * The longest refusal of a move's writers: answers ({ at: ms of the answer, status }) sorted by time, each
 * run of 503s measured from its first 503 to the next accepted write (or the last answer when none
 * followed). Returns { longest_ms, runs }.
 */
export function longestRefusal(answers) {
  const sorted = [...answers].sort((a, b) => a.at - b.at);
  let longest = 0;
  let runs = 0;
  let since = null;
  for (const a of sorted) {
    if (a.status === 503) {
      if (since === null) {
        since = a.at;
        runs++;
      }
    } else if (a.status >= 200 && a.status < 300 && since !== null) {
      longest = Math.max(longest, a.at - since);
      since = null;
    }
  }
  if (since !== null && sorted.length) longest = Math.max(longest, sorted[sorted.length - 1].at - since);
  return { longest_ms: longest, runs };
}

/** The mover's phases in which the source's fence is certainly up and the switch not yet begun. */
const FENCED_PHASES = ["clear_target", "copy"];

/**
 * When the site's writes were certainly fenced, from the progress polls ({ asked, answered, phase }): from
 * the answer of the first poll that saw a fenced phase to the asking of the last poll that still saw one
 * (the saved phase is the step done; the next may run meanwhile). Null when no poll saw one.
 */
export function fencedWindow(polls) {
  const seen = polls.filter((p) => FENCED_PHASES.includes(p.phase));
  if (seen.length === 0) return null;
  const from = seen[0].answered;
  const until = seen[seen.length - 1].asked;
  return until > from ? { from, until } : null;
}

async function groupOf(mf, siteId) {
  const directory = await mf.getD1Database("DIRECTORY", "content");
  const row = await directory
    .prepare("SELECT group_name FROM site_groups WHERE site_id = ?")
    .bind(siteId)
    .first();
  if (!row) throw new Error(`content's directory has no site ${siteId}`);
  return row.group_name;
}

/**
 * The rows of round `r` (0-based): the round's trivial route, then each kind on the twin ("one") and on the
 * measured site ("fleet"), the twin first in even rounds. Every read row has slugs, `since` values and
 * client addresses of its own (round × phase), so no answer comes from an earlier row's cache or quota.
 */
export function roundRows(r, { keys, scale, at }) {
  if (r >= FLEET_ROUNDS) throw new Error(`round ${r}: the fleet measures ${FLEET_ROUNDS} rounds`);
  const per = Math.floor(scale.sitePosts / FLEET_ROUNDS);
  const slugs = publishedSlugs(1 + r * per, Math.min(1000, Math.floor(per * 0.9)));
  const trivialId = `fleet_trivial_r${r}`;
  const order = r % 2 === 0 ? ["one", "fleet"] : ["fleet", "one"];
  const rows = [
    {
      id: trivialId,
      label: `GET /health (trivial route), fleet stack, round ${r + 1}`,
      spec: { method: "GET", paths: ["/health"] },
    },
  ];
  // One kind's row on one site: only that kind's paths are built (a cold row's are 40,000).
  const kindRow = (kind, phase) => {
    const slot = 2 * r + (phase === "one" ? 0 : 1);
    const k = keys[phase];
    const where = `${at[phase]}, round ${r + 1}`;
    switch (kind) {
      case "cold":
        return {
          label: `GET /v1/posts?limit=20&since=… (ck_, a new since each request), ${where}`,
          spec: { method: "GET", paths: coldPaths(40_000, 200_000 * (1 + slot)), rotate: bearer(k.cold) },
        };
      case "detail":
        return {
          label: `GET /v1/posts/{slug} (pk_, ${fmt(slugs.length)} slugs), ${where}`,
          spec: {
            method: "GET",
            paths: slugs.map((s, i) => `/v1/posts/${s}?key=${k.public[i % k.public.length]}`),
            headers: { origin: ORIGIN },
            ip: { offset: (6 + slot) << 20 },
          },
        };
      case "post":
        return {
          label: `POST /v1/posts (ck_, published), ${where}`,
          spec: {
            method: "POST",
            paths: ["/v1/posts"],
            headers: { "content-type": "application/json" },
            rotate: bearer(k.write),
            body: JSON.stringify(postBody(`Fleet ${phase} r${r} {n} ${Date.now().toString(36)}`)),
          },
        };
      default:
        throw new Error(`no fleet row of kind ${kind}`);
    }
  };
  for (const kind of FLEET_KINDS) {
    for (const phase of order) {
      rows.push({ id: `fleet_${kind}_${phase}_r${r}`, kind, base: trivialId, ...kindRow(kind, phase) });
    }
  }
  return rows;
}

/**
 * The move: `writers` loops posting to the site (rotating `keys`) from before the move until it is done;
 * content's RPC starts the move and its progress is polled. Every accepted post is then looked up in the
 * site's new group, every refusal checked to be a 503 with Retry-After.
 */
async function measureMove(ctx, { site, keys, to, scale, log }) {
  const { mf, urls } = ctx;
  const content = await mf.getWorker("content");
  const from = await groupOf(mf, site.id);
  const answers = [];
  let stop = false;
  let n = 0;
  const tag = Date.now().toString(36);
  const writer = async () => {
    while (!stop) {
      const i = n++;
      const sent = performance.now();
      let status = 0;
      let id = null;
      let retryAfter = null;
      try {
        const res = await fetch(`${urls.gateway}/v1/posts`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${keys[i % keys.length]}` },
          body: JSON.stringify(postBody(`Fleet move ${tag} ${i}`)),
        });
        status = res.status;
        retryAfter = res.headers.get("retry-after");
        const text = await res.text();
        if (status === 201) id = JSON.parse(text).id;
      } catch {
        status = -1;
      }
      answers.push({ sent, at: performance.now(), status, id, retryAfter });
      // Paced: about 20 writes a second per writer, enough to time a refusal to ~50 ms.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const writing = Array.from({ length: scale.moveWriters }, writer);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const started = performance.now();
  const start = await content.startSiteMove({ site_id: site.id, to, requested_by: null });
  if (!start.ok) {
    stop = true;
    await Promise.all(writing);
    throw new Error(`the move did not start: ${start.reason}`);
  }
  let progress = start.move;
  let switchedMs = null;
  const polls = [];
  const deadline = started + scale.moveTimeoutS * 1000;
  while (performance.now() < deadline) {
    const asked = performance.now();
    progress = await content.siteMove({ site_id: site.id });
    polls.push({ asked, answered: performance.now(), phase: progress?.phase ?? null });
    if (switchedMs === null && progress && ["cleaning", "done"].includes(progress.state)) {
      switchedMs = performance.now() - started;
      log(`  move: switched after ${round(switchedMs / 1000, 1)} s (${progress.rows_copied} rows copied)`);
    }
    if (!progress || ["done", "rolled_back"].includes(progress.state)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const doneMs = performance.now() - started;
  // A few more writes after the move, in the new group.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  stop = true;
  await Promise.all(writing);
  const accepted = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status === 503);
  const other = answers.filter((a) => a.status !== 201 && a.status !== 503);
  const group = await groupOf(mf, site.id);
  const target = await mf.getD1Database(groupBindingName(group), "content");
  const ids = JSON.stringify(accepted.map((a) => a.id));
  const present = (
    await target
      .prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ? AND id IN (SELECT value FROM json_each(?))")
      .bind(site.id, ids)
      .first()
  ).n;
  const posts = (
    await target.prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ?").bind(site.id).first()
  ).n;
  const source = await mf.getD1Database(groupBindingName(from), "content");
  const left = (
    await source.prepare("SELECT COUNT(*) AS n FROM posts WHERE site_id = ?").bind(site.id).first()
  ).n;
  const refusal = longestRefusal(answers);
  const fenced = fencedWindow(polls);
  // A write held rather than refused shows as a long answer, and as a silence of every writer.
  const byAnswer = [...answers].sort((a, b) => a.at - b.at);
  const longestGap = byAnswer.reduce((m, a, i) => (i === 0 ? 0 : Math.max(m, a.at - byAnswer[i - 1].at)), 0);
  const slowest = answers.reduce((m, a) => Math.max(m, a.at - a.sent), 0);
  const acceptedWhileFenced = fenced
    ? accepted.filter((a) => a.sent >= fenced.from && a.at <= fenced.until).length
    : 0;
  return {
    site_posts: posts,
    from,
    to,
    group_after: group,
    state: progress?.state ?? null,
    phase: progress?.phase ?? null,
    rows_copied: progress?.rows_copied ?? null,
    rows_deleted: progress?.rows_deleted ?? null,
    error: progress?.error ?? null,
    switch_seconds: switchedMs === null ? null : round(switchedMs / 1000, 2),
    done_seconds: progress?.state === "done" ? round(doneMs / 1000, 2) : null,
    longest_refusal_ms: round(refusal.longest_ms, 0),
    refusal_runs: refusal.runs,
    mover_longest_refusal_ms: progress?.longest_write_refusal_ms ?? null,
    writes: answers.length,
    accepted: accepted.length,
    accepted_present: present,
    refused: refused.length,
    refused_without_retry_after: refused.filter((a) => !a.retryAfter).length,
    other: other.length,
    longest_silence_ms: round(longestGap, 0),
    slowest_write_ms: round(slowest, 0),
    fenced_window_ms: fenced ? round(fenced.until - fenced.from, 0) : null,
    accepted_while_fenced: acceptedWhileFenced,
    other_statuses: Object.fromEntries(
      [...new Set(other.map((a) => a.status))].map((s) => [s, other.filter((a) => a.status === s).length]),
    ),
    source_rows_left: left,
  };
}

/**
 * The whole section on its own stack: returns { load: rows for the load table (each with its `base`),
 * summary: what the report's fleet paragraph and targets read }.
 */
export async function fleetRun(options, tool, stem, log, runLoad, seeding = {}) {
  const scale = fleetScale(options.quick);
  const persist = mkdtempSync(path.join(os.tmpdir(), "platform-bench-fleet-"));
  const workerLog = createWriteStream(`${stem}.fleet.workers.log`);
  log(`fleet: a stack with ${STACK_GROUPS.length} content groups…`);
  const { mf, urls } = await startPlatform({
    persist,
    portOffset: options.portOffset + FLEET_STACK_OFFSET,
    adjustWorker: withGroups(STACK_GROUPS),
    handleStructuredLogs: (entry) => workerLog.write(`${entry.message}\n`),
  });
  const ctx = { mf, urls, options, tool, seeding };
  const load = [];
  try {
    // startPlatform migrates the databases of the committed config; the extra groups here.
    for (const g of STACK_GROUPS) {
      await applyMigrations(await mf.getD1Database(groupBindingName(g), "content"), "content");
    }
    const content = await mf.getWorker("content");
    const configured = (await content.contentGroups()).map((g) => g.group);
    if (configured.join(",") !== STACK_GROUPS.join(",")) {
      throw new Error(
        `the fleet stack's content runs groups ${configured.join(",")}, not ${STACK_GROUPS.join(",")}`,
      );
    }
    const started = performance.now();
    const tenant = await createTenant(mf, urls);
    ctx.tenant = tenant;
    // The twin, the measured site and the site to move, each with sitePosts posts, placed by the worker's rule
    // (fewest sites): three groups of five. The twin's group is then kept to the twin alone.
    const created = {
      twin: await createSite(urls, tenant, "fleet-twin"),
      measured: await createSite(urls, tenant, "fleet-measured"),
      moving: await createSite(urls, tenant, "fleet-move"),
    };
    const seeded = {};
    for (const site of Object.values(created)) {
      const [writer] = await createKeys(urls, tenant, site.id, { count: 1, scopes: WRITE_SCOPES });
      seeded[site.id] = await seedPosts(mf, urls, writer, scale.sitePosts, site.id);
    }
    const twin = { id: created.twin.id, group: await groupOf(mf, created.twin.id) };
    const measured = {
      id: created.measured.id,
      group: await groupOf(mf, created.measured.id),
      templateId: seeded[created.measured.id].id,
    };
    const fleetGroups = STACK_GROUPS.filter((g) => g !== twin.group);
    const window = FLEET_ROUNDS * (options.duration + options.warmup);
    const reads = poolSize(options.maxRps, window, 600, 10);
    const keys = {};
    for (const [phase, siteId] of [
      ["one", twin.id],
      ["fleet", measured.id],
    ]) {
      keys[phase] = {
        cold: await createKeys(urls, tenant, siteId, { count: reads, scopes: READ_SCOPES }),
        public: await createKeys(urls, tenant, siteId, { count: reads, kind: "public", scopes: READ_SCOPES }),
        write: await createKeys(urls, tenant, siteId, {
          count: poolSize(options.maxWriteRps, window, 60, 1),
          scopes: WRITE_SCOPES,
        }),
      };
    }
    const moveKeys = await createKeys(urls, tenant, created.moving.id, {
      count: poolSize(20 * scale.moveWriters, scale.moveTimeoutS + 10, 60, 1),
      scopes: WRITE_SCOPES,
    });
    ctx.seeding.fleet_sites_seconds = round((performance.now() - started) / 1000, 1);

    log(
      `fleet: seeding ${fmt(scale.sites)} sites and ${fmt(scale.posts)} posts over ${fleetGroups.join(", ")} (the twin alone in ${twin.group})…`,
    );
    const bulk = await seedFleet(mf, {
      groups: fleetGroups,
      measured,
      sites: scale.sites,
      posts: scale.posts - 2 * scale.sitePosts,
      log,
    });
    ctx.seeding.fleet_bulk_seconds = round(bulk.seconds, 1);
    const postsByGroup = await groupPostCounts(mf, STACK_GROUPS);
    const directory = await mf.getD1Database("DIRECTORY", "content");
    const sitesByGroup = Object.fromEntries(
      (
        await directory.prepare("SELECT group_name, COUNT(*) AS n FROM site_groups GROUP BY group_name").all()
      ).results.map((r) => [r.group_name, r.n]),
    );
    if (sitesByGroup[twin.group] !== 1)
      throw new Error(`the twin's group ${twin.group} holds ${sitesByGroup[twin.group]} sites, not 1`);
    const fullest = fleetGroups.map((g) => [g, postsByGroup[g]]).sort((a, b) => b[1] - a[1])[0][0];
    if (fullest !== measured.group)
      throw new Error(`the fullest group is ${fullest}, not the measured site's ${measured.group}`);
    log(`fleet: posts by group ${JSON.stringify(postsByGroup)}; measuring ${FLEET_ROUNDS} rounds…`);
    const at = {
      one: `the twin alone in ${twin.group} (${fmt(postsByGroup[twin.group])} posts)`,
      fleet: `the fleet: ${fmt(postsByGroup[fullest])} posts in ${fullest}, the fullest of ${fleetGroups.length}`,
    };
    for (let r = 0; r < FLEET_ROUNDS; r++) {
      for (const row of roundRows(r, { keys, scale, at }))
        load.push({ ...(await runLoad(ctx, row)), ...(row.base ? { base: row.base } : {}), kind: row.kind });
    }

    log(`fleet: moving a ${fmt(scale.sitePosts)}-post site into ${fullest} under writes…`);
    const move = await measureMove(ctx, { site: created.moving, keys: moveKeys, to: fullest, scale, log });
    log(
      `fleet: move ${move.state}, switch ${move.switch_seconds} s, done ${move.done_seconds} s, longest refusal ${move.longest_refusal_ms} ms`,
    );
    return {
      load,
      summary: {
        groups: fleetGroups,
        twin_group: twin.group,
        rounds: FLEET_ROUNDS,
        sites: scale.sites,
        posts: scale.posts,
        site_posts: scale.sitePosts,
        measured_group: measured.group,
        fullest,
        posts_by_group: postsByGroup,
        sites_by_group: sitesByGroup,
        bulk_seconds: round(bulk.seconds, 1),
        move,
      },
    };
  } finally {
    await mf.dispose();
    workerLog.end();
    rmSync(persist, { recursive: true, force: true });
  }
}
