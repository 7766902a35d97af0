// The Workers' cron triggers, run locally: `npm start` and `npm run dev` start one scheduler that reads the
// crons of each wrangler config (`[triggers] crons`), computes each one's next fire time (UTC, as Cloudflare
// does) and fires it through a trigger of the running platform, logging one line per fire. `npm run cron`
// fires one at once with the same triggers. Two ways to fire:
//   - `npm start` (scripts/platform.mjs, each service on its own port): `POST /__dev/cron?cron=…&time=…` on
//     that service's address (src/lib/dev-cron.ts: development only, 404 in a deploy, never routed by the
//     gateway);
//   - `npm run dev` (wrangler dev, where only the gateway has a port): the same trigger through a service
//     binding of a relay Worker that reaches the running Workers through wrangler's dev registry.
//     (Miniflare's own `/cdn-cgi/local/scheduled` only reaches the entry Worker, the gateway, through
//     wrangler's proxy: its route override header stops at the proxy.)
import { execFileSync } from "node:child_process";
import { root, serviceNames, services } from "./workers.mjs";

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  // 0 and 7 are both Sunday.
  { name: "day of week", min: 0, max: 7 },
];

/**
 * One cron field: `*`, `*\/n`, a number, a range `a-b` (with an optional `/n`), or a comma list of those.
 * Returns the set of values it allows and whether it was `*` (the day fields' rule needs to know).
 */
function parseField(text, { name, min, max }) {
  const values = new Set();
  for (const part of text.split(",")) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!match) throw new Error(`cron ${name}: cannot read "${part}"`);
    const step = match[4] === undefined ? 1 : Number(match[4]);
    let from = min;
    let to = max;
    if (match[1] !== "*") {
      from = Number(match[2]);
      // `5/15` means from 5 to the end by 15; `5` alone is just 5.
      to = match[3] !== undefined ? Number(match[3]) : match[4] !== undefined ? max : from;
    }
    if (step < 1 || from < min || to > max || from > to) {
      throw new Error(`cron ${name}: "${part}" is outside ${min}-${max}`);
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return { values, any: text === "*" };
}

/** A five-field cron (minute hour day-of-month month day-of-week) as sets of allowed values. */
export function parseCron(expression) {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron "${expression}": expected 5 fields, got ${parts.length}`);
  const [minute, hour, dom, month, dow] = parts.map((p, i) => parseField(p, FIELDS[i]));
  if (dow.values.has(7)) dow.values.add(0);
  return { minute, hour, dom, month, dow };
}

/** Whether a parsed cron fires in the UTC minute of `date`. */
function matches(cron, date) {
  if (!cron.minute.values.has(date.getUTCMinutes())) return false;
  if (!cron.hour.values.has(date.getUTCHours())) return false;
  if (!cron.month.values.has(date.getUTCMonth() + 1)) return false;
  const domOk = cron.dom.values.has(date.getUTCDate());
  const dowOk = cron.dow.values.has(date.getUTCDay());
  // Cron's rule: when both day fields are restricted, either one matching is enough.
  if (!cron.dom.any && !cron.dow.any) return domOk || dowOk;
  return domOk && dowOk;
}

const MINUTE = 60_000;
/** Far enough for any cron that fires at all (a yearly one, or 29 February on a leap year). */
const HORIZON_MINUTES = 8 * 366 * 24 * 60;

/** The first minute strictly after `after` (ms or Date) at which `expression` fires, in ms since the epoch (UTC). */
export function nextFire(expression, after) {
  const cron = typeof expression === "string" ? parseCron(expression) : expression;
  let t = Math.floor(Number(after) / MINUTE) * MINUTE + MINUTE;
  for (let i = 0; i < HORIZON_MINUTES; i++, t += MINUTE) {
    if (matches(cron, new Date(t))) return t;
  }
  throw new Error(`cron never fires: ${typeof expression === "string" ? expression : "(parsed)"}`);
}

/**
 * The crons of every Worker's wrangler config, `{ identity: ["0 * * * *"], … }` (Workers without crons left
 * out), read by a short-lived child: wrangler's config reader (about 75 MB) never stays in the process that
 * keeps the platform running (scripts/platform.mjs does the same).
 */
export function readCrons() {
  const script = `
    import { experimental_readRawConfig } from "wrangler";
    const configs = JSON.parse(process.argv[1]);
    const out = {};
    for (const [name, file] of Object.entries(configs)) {
      const crons = experimental_readRawConfig({ config: file }).rawConfig.triggers?.crons ?? [];
      if (crons.length) out[name] = crons;
    }
    process.stdout.write(JSON.stringify(out));`;
  const configs = Object.fromEntries(serviceNames.map((name) => [name, `${root}/${services[name].config}`]));
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(configs)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  }).toString();
  return JSON.parse(out);
}

/**
 * A fire through each service's own dev trigger (`npm start`: scripts/platform.mjs gives each service a port).
 * `urls`: the services' base URLs by name.
 */
export function devTriggerFirer(urls) {
  return async (worker, cron, scheduledTime) => {
    const query = new URLSearchParams({ cron, time: String(scheduledTime) });
    const res = await fetch(`${urls[worker]}/__dev/cron?${query}`, { method: "POST" });
    return outcomeOf(res);
  };
}

/**
 * A fire through the same development trigger where the services have no port of their own (`npm run
 * dev`: wrangler dev gives only the gateway one): a small relay Worker in a Miniflare of its own, whose
 * service bindings reach the running Workers through wrangler's dev registry (`registryPath`, the
 * `WRANGLER_REGISTRY_PATH` scripts/dev.mjs gives wrangler), as one `wrangler dev` reaches another's.
 * Returns the firer with `close()`.
 */
export async function registryFirer(registryPath) {
  const { convertV4MiniflareOptions, Log, LogLevel, Miniflare } = await import("miniflare");
  const names = serviceNames.filter((name) => services[name].database);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      log: new Log(LogLevel.WARN),
      unsafeDevRegistryPath: registryPath,
      // Nothing at start-up reaches the network.
      cf: { colo: "DEV", country: "XX", asn: 0 },
      workers: [
        {
          name: "cron-relay",
          modules: true,
          script: `export default {
            fetch(request, env) {
              const url = new URL(request.url);
              const worker = env[url.pathname.slice(1)];
              if (!worker) return new Response("no such worker", { status: 404 });
              return worker.fetch("http://service${"/__dev/cron"}" + url.search, { method: "POST" });
            },
          };`,
          serviceBindings: Object.fromEntries(names.map((name) => [name, { name }])),
        },
      ],
    }),
  );
  await mf.ready;
  const fire = async (worker, cron, scheduledTime) => {
    const query = new URLSearchParams({ cron, time: String(scheduledTime) });
    return outcomeOf(await mf.dispatchFetch(`http://relay/${worker}?${query}`));
  };
  return Object.assign(fire, { close: () => mf.dispose() });
}

/** `{ ok, status, detail }` of a trigger's answer (the dev trigger's problem+json detail on failure). */
async function outcomeOf(res) {
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // A plain answer (the relay's, a 503 of the dev registry) or an HTML 404.
  }
  // One line: a failed fetch's text may carry a stack.
  const detail = String(body?.detail ?? body?.outcome ?? text)
    .split("\n")[0]
    .slice(0, 200);
  return { ok: res.ok, status: res.status, detail };
}

/** One log line of a fire: the worker, the cron, the scheduled minute, the outcome, the status and the duration. */
export function fireLine(worker, cron, scheduledTime, result, ms) {
  const at = new Date(scheduledTime).toISOString().slice(11, 16);
  const what = result.ok ? "ok" : `failed: ${result.detail}`;
  const status = result.status === undefined ? "" : ` (${result.status})`;
  return `[cron] ${worker} "${cron}" at ${at}Z: ${what}${status} in ${ms} ms`;
}

/** Fires one cron now through `fire` and returns the result and the log line. */
export async function fireOnce(fire, worker, cron, scheduledTime = Date.now()) {
  const started = Date.now();
  let result;
  try {
    result = await fire(worker, cron, scheduledTime);
  } catch (err) {
    result = { ok: false, status: undefined, detail: err.cause?.code ?? err.message };
  }
  return { result, line: fireLine(worker, cron, scheduledTime, result, Date.now() - started) };
}

/** Longest setTimeout delay Node keeps (about 24.8 days); a later fire is waited for in steps. */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Runs every cron of `crons` (`{ worker: [cron, …] }`) on its schedule through `fire`, logging one line per
 * fire with `log`. Returns `stop()`. `now` is injectable for tests of the timing. Timers are unref'd: the
 * scheduler never keeps a process alive by itself.
 */
export function startScheduler({ crons, fire, log = console.log, now = Date.now }) {
  const timers = new Set();
  let stopped = false;
  const arm = (worker, cron, parsed) => {
    if (stopped) return;
    const at = nextFire(parsed, now());
    const wait = (delay, then) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        then();
      }, delay);
      timer.unref?.();
      timers.add(timer);
    };
    const due = () => {
      const left = at - now();
      if (left > 0) {
        wait(Math.min(left, MAX_DELAY), due);
        return;
      }
      if (stopped) return;
      // The next one is armed before this one runs: a slow run never delays the schedule.
      arm(worker, cron, parsed);
      void fireOnce(fire, worker, cron, at).then(({ line }) => {
        if (!stopped) log(line);
      });
    };
    due();
  };
  for (const [worker, list] of Object.entries(crons)) {
    for (const cron of list) arm(worker, cron, parseCron(cron));
  }
  return {
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** The schedule as printed at start: `identity 0 * * * *; content 30 * * * *, * * * * *; …`. */
export function describeCrons(crons) {
  return Object.entries(crons)
    .map(([worker, list]) => `${worker} ${list.join(", ")}`)
    .join("; ");
}

/**
 * What `npm start` and `npm run dev` run: every Worker's crons from their configs, on schedule, through
 * `fire`; the schedule printed once. Returns the scheduler (`stop()`) and the crons.
 */
export function runSchedules({ fire, log = console.log, crons = readCrons() }) {
  log(`[cron] schedules (UTC): ${describeCrons(crons)}`);
  return { crons, ...startScheduler({ crons, fire, log }) };
}
