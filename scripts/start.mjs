// `npm start`: the whole platform locally, one process tree. Builds the four Workers, applies every
// service's migrations to the local D1 databases, generates local secrets on first start, serves the
// gateway on 127.0.0.1:8787 and identity/content/sites on 8788-8790 (all on local D1, KV, DO, Queues
// and R2 persisted under .wrangler/state, the same store `wrangler dev` uses), waits until they
// answer, seeds the demo tenant once on an empty database and prints it. Ctrl-C stops everything.
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { ensureDevVars } from "./dev-vars.mjs";
import { applyMigrations } from "./migrate.mjs";
import { seedDemo } from "./seed.mjs";
import { buildWorker, root, serviceNames, services, workerOptions } from "./workers.mjs";

const HOST = "127.0.0.1";
const persist = path.join(root, ".wrangler/state/v3");
const distDir = path.join(root, ".wrangler/dist");

function options(devVars) {
  return convertV4MiniflareOptions({
    host: HOST,
    port: services.gateway.port,
    resourcePersistencePath: persist,
    // No request.cf lookup: nothing at start-up reaches the network.
    cf: { colo: "DEV", country: "XX", asn: 0 },
    log: new Log(process.env.LOG_LEVEL === "debug" ? LogLevel.DEBUG : LogLevel.WARN),
    workers: serviceNames.map((name) => ({
      ...workerOptions(name, { scriptPath: buildWorker(name, distDir), bindings: devVars[name] }),
      // The gateway is the entry worker on 8787; each service also answers on its own address.
      ...(name === "gateway" ? {} : { unsafeDirectSockets: [{ host: HOST, port: services[name].port }] }),
    })),
  });
}

async function waitUntilReady(url, timeoutMs = 60_000) {
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

async function main() {
  const devVars = ensureDevVars();
  process.stdout.write("Building workers… ");
  const mf = new Miniflare(options(devVars));
  await mf.ready;
  console.log("done.");

  for (const name of serviceNames) {
    const database = services[name].database;
    if (!database) continue;
    const db = await mf.getD1Database("DB", name);
    const applied = await applyMigrations(db, database);
    console.log(`Migrations ${name}: ${applied.length ? applied.join(", ") : "up to date"}`);
  }

  const base = `http://${HOST}:${services.gateway.port}`;
  await waitUntilReady(`${base}/ready`);

  const identityDb = await mf.getD1Database("DB", "identity");
  const users = await identityDb.prepare("SELECT COUNT(*) AS n FROM users").first("n");
  if (users === 0) {
    console.log("Empty database: seeding the demo tenant…");
    const demo = await seedDemo(base);
    console.log(JSON.stringify(demo, null, 2));
  } else {
    console.log("Database already seeded (run `npm run seed -- --json` for another demo tenant).");
  }

  console.log(`
Site platform running:
  gateway   ${base}            (the one address you need)
  identity  http://${HOST}:${services.identity.port}
  content   http://${HOST}:${services.content.port}
  sites     http://${HOST}:${services.sites.port}
API docs:   http://${HOST}:${services.identity.port}/docs  http://${HOST}:${services.content.port}/docs  http://${HOST}:${services.sites.port}/docs
Dev outbox: ${base}/api/v1/auth/__dev/outbox?to=ADDRESS
Ctrl-C stops everything.`);

  const stop = async () => {
    console.log("\nStopping…");
    await mf.dispose();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
