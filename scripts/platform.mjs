// Starts the four Workers in one Miniflare (one workerd process): the gateway as the entry worker (the
// public origin: content's routes take its `/v1/*` and `/media/*` there, as on Cloudflare), each service
// also on its own port, all bindings local and persisted under `persist`. Used by
// `npm start` and `npm run bench`.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { ensureDevVars } from "./dev-vars.mjs";
import { applyMigrations } from "./migrate.mjs";
import { OPTIONS_MARK } from "./platform-options.mjs";
import { buildWorker, root, serviceNames, services } from "./workers.mjs";

export const HOST = "127.0.0.1";

export async function startPlatform({
  persist = path.join(root, ".wrangler/state/v3"),
  portOffset = 0,
  extraBindings = {},
  distDir = path.join(root, ".wrangler/dist"),
  outboundService = undefined,
  // Where the Workers' log lines go (default: Miniflare prints them); the bench keeps them in a file.
  handleStructuredLogs = undefined,
  // The bench's hook on each Worker's final options (bench/local-limiters.mjs); `npm start` passes none.
  adjustWorker = (options) => options,
} = {}) {
  const devVars = ensureDevVars();
  const port = (name) => services[name].port + portOffset;
  const scripts = Object.fromEntries(serviceNames.map((name) => [name, buildWorker(name, distDir)]));
  const { workers, migrations: statements, databases } = readOptions(scripts);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: HOST,
      port: port("gateway"),
      resourcePersistencePath: persist,
      // No request.cf lookup: nothing at start-up reaches the network.
      cf: { colo: "DEV", country: "XX", asn: 0 },
      log: new Log(process.env.LOG_LEVEL === "debug" ? LogLevel.DEBUG : LogLevel.WARN),
      ...(handleStructuredLogs ? { handleStructuredLogs } : {}),
      workers: serviceNames.map((name) =>
        adjustWorker({
          // Content's routes take `/v1/*` and `/media/*` of the gateway's socket (LOCAL_ROUTES, scripts/workers.mjs).
          ...workers[name],
          bindings: { ...workers[name].bindings, ...devVars[name], ...extraBindings[name] },
          // Tests route every outbound fetch to their fake internet; `npm start` leaves the network as is.
          ...(outboundService ? { outboundService } : {}),
          // The gateway is the entry worker; each service also answers on its own address.
          ...(name === "gateway" ? {} : { unsafeDirectSockets: [{ host: HOST, port: port(name) }] }),
        }),
      ),
    }),
  );
  await mf.ready;
  // Every database of every Worker, by its binding: identity's, sites', and content's site groups and
  // directory (scripts/databases.mjs, docs/decisions/site-groups.md); keyed by database name.
  const migrations = {};
  for (const db of databases) {
    migrations[db.name] = await applyMigrations(
      await mf.getD1Database(db.binding, db.service),
      db.migrations,
      (file) => statements[db.migrations][file],
    );
  }
  const urls = Object.fromEntries(serviceNames.map((name) => [name, `http://${HOST}:${port(name)}`]));
  await waitUntilReady(`${urls.gateway}/ready`);
  return { mf, urls, migrations };
}

/**
 * The Miniflare options of the four Workers and the split migrations, from a short-lived Node process
 * (scripts/platform-options.mjs): wrangler's config readers, about 75 MB once loaded, never stay in the
 * process that keeps the platform running.
 */
function readOptions(scripts) {
  const out = execFileSync(
    process.execPath,
    [path.join(root, "scripts/platform-options.mjs"), JSON.stringify({ scripts })],
    { cwd: root, maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] },
  ).toString();
  const line = out.split("\n").find((l) => l.startsWith(OPTIONS_MARK));
  if (!line) throw new Error(`scripts/platform-options.mjs printed no options: ${out.slice(-2000)}`);
  return JSON.parse(line.slice(OPTIONS_MARK.length));
}

export async function waitUntilReady(url, timeoutMs = 60_000) {
  const started = Date.now();
  let last = "";
  while (Date.now() - started < timeoutMs) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`not ready after ${timeoutMs} ms: ${url} (${last})`);
}
