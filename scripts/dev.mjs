// `npm run dev`: local work with reload on save. `wrangler dev` runs the four Workers in one process from
// their own configs (`-c wrangler.toml -c workers/identity/wrangler.toml -c …`): the gateway, the first
// config, on 127.0.0.1:8787 over HTTP, the services behind it through their bindings (so every API and
// docs page is reached through the gateway), and it rebuilds and reloads a Worker when a file it imports
// is saved. Before that: local secrets (.dev.vars, generated on first start), every service's migrations
// applied to the local D1 databases (the store `npm start` also uses: .wrangler/state), and once the
// gateway answers, the demo tenant seeded when the database has no user yet, and every Worker's cron
// triggers run on their schedules (scripts/scheduler.mjs: the services have no port of their own here, so
// through wrangler's dev registry, kept in `<persist>/dev-registry`: a second `npm run dev` of another
// store never answers for this one). Ctrl-C stops everything.
//
// Wrangler's own launcher (`npx wrangler`) refuses Node below 22; its CLI runs on Node 20, so it is
// started through scripts/wrangler.mjs's path to it.
//
// DEV_PORT (default 8787), DEV_PERSIST_TO (default .wrangler/state) and DEV_INSPECTOR_PORT move it (tests).
import { spawn } from "node:child_process";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { allDatabases } from "./databases.mjs";
import { ensureDevVars } from "./dev-vars.mjs";
import { applyMigrations } from "./migrate.mjs";
import { HOST, waitUntilReady } from "./platform.mjs";
import { registryFirer, runSchedules } from "./scheduler.mjs";
import { seedDemo } from "./seed.mjs";
import { root, serviceNames, services } from "./workers.mjs";
import { wranglerCli } from "./wrangler.mjs";

const port = Number(process.env.DEV_PORT ?? 8787);
const persistTo = path.resolve(root, process.env.DEV_PERSIST_TO ?? ".wrangler/state");
/** Where wrangler dev registers its Workers and the cron scheduler finds them (scripts/scheduler.mjs). */
const devRegistry = () => path.join(persistTo, "dev-registry");

/**
 * Applies the migrations of every database (identity's, sites', content's site groups and directory:
 * scripts/databases.mjs) in the store wrangler dev opens (`<persistTo>/v3`, the databases by their
 * configs' ids), with a Miniflare of its own that is closed before wrangler starts. Returns what was
 * applied per database and whether the identity database has any user.
 */
async function migrate() {
  const databases = allDatabases();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: path.join(persistTo, "v3"),
      log: new Log(LogLevel.WARN),
      workers: [
        {
          name: "migrations",
          modules: true,
          script: "export default { fetch() { return new Response(null, { status: 204 }); } };",
          d1Databases: Object.fromEntries(databases.map((d) => [d.name, d.id])),
        },
      ],
    }),
  );
  try {
    await mf.ready;
    const applied = {};
    for (const db of databases) {
      applied[db.name] = await applyMigrations(await mf.getD1Database(db.name), db.migrations);
    }
    const identity = await mf.getD1Database(databases.find((d) => d.service === "identity").name);
    const users = await identity.prepare("SELECT COUNT(*) AS n FROM users").first("n");
    return { applied, empty: users === 0 };
  } finally {
    await mf.dispose();
  }
}

function startWrangler() {
  const configs = serviceNames.flatMap((name) => ["-c", services[name].config]);
  const args = [
    "--no-warnings",
    wranglerCli,
    "dev",
    ...configs,
    "--ip",
    HOST,
    "--port",
    String(port),
    "--persist-to",
    persistTo,
    ...(process.env.DEV_INSPECTOR_PORT ? ["--inspector-port", process.env.DEV_INSPECTOR_PORT] : []),
  ];
  return spawn(process.execPath, args, {
    cwd: root,
    stdio: ["inherit", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_REGISTRY_PATH: devRegistry() },
  });
}

let wrangler;
/** The scheduler's relay (its own workerd), closed before this process exits. */
let relay;

async function main() {
  ensureDevVars();
  const { applied, empty } = await migrate();
  for (const [name, files] of Object.entries(applied)) {
    console.log(`migrations ${name}: ${files.length ? files.join(", ") : "up to date"}`);
  }
  wrangler = startWrangler();
  const stop = (signal) => {
    if (wrangler.exitCode === null) wrangler.kill(signal);
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  wrangler.on("exit", async (code) => {
    await relay?.close();
    process.exit(code ?? 0);
  });

  const gateway = `http://${HOST}:${port}`;
  await waitUntilReady(`${gateway}/ready`, 120_000);
  if (empty) {
    console.log("\nEmpty database: seeding the demo tenant (also: npm run seed -- --json or --env)…");
    console.log(JSON.stringify(await seedDemo(gateway, { fresh: true }), null, 2));
  }
  console.log(`
Site platform running (wrangler dev, reloads on save):
  gateway   ${gateway}   <- every API, the dev outbox and the hosted pages
  API docs  ${gateway}/docs   (${gateway}/docs/identity, /docs/content, /docs/sites)
  demo tenant: eval "$(npm run -s seed -- --env)"
  crons: on schedule (one [cron] line per fire); fire one now: npm run cron -- <worker> ["<cron>"]
Ctrl-C stops everything.`);
  relay = await registryFirer(devRegistry());
  runSchedules({ fire: relay });
}

main().catch((err) => {
  console.error(err);
  if (wrangler?.exitCode === null) wrangler.kill("SIGTERM");
  process.exit(1);
});
