// `npm run cron -- <worker> ["<cron>"]`: fires one cron trigger of a running platform now (default: the
// worker's first cron in its wrangler config) and prints one line: the worker, the cron, the outcome, the
// status and the duration (the Worker's own log lines show what the run did). Under `npm start` it goes
// through the service's development trigger on its own port (PORT_OFFSET moves the ports as for `npm
// start`); when nothing answers there, through `npm run dev`'s Workers, found in its dev registry (under
// DEV_PERSIST_TO, default .wrangler/state). Exits 1 when the run failed or no platform answered.
import path from "node:path";
import { HOST } from "./platform.mjs";
import { devTriggerFirer, fireOnce, readCrons, registryFirer } from "./scheduler.mjs";
import { root, services } from "./workers.mjs";

async function main() {
  const [worker, given] = process.argv.slice(2);
  const crons = readCrons();
  if (!worker || !crons[worker]) {
    console.error(
      `usage: npm run cron -- <worker> ["<cron>"]   workers with crons: ${Object.keys(crons).join(", ")}`,
    );
    process.exit(2);
  }
  const cron = given ?? crons[worker][0];
  if (!crons[worker].includes(cron)) {
    console.error(
      `${worker} has no cron "${cron}" (its crons: ${crons[worker].join(", ")}); firing it anyway`,
    );
  }
  const offset = Number(process.env.PORT_OFFSET ?? 0);
  const own = `http://${HOST}:${services[worker].port + offset}`;
  let { result, line } = await fireOnce(devTriggerFirer({ [worker]: own }), worker, cron);
  if (result.status === undefined) {
    // Nothing on the service's own port: `npm run dev` (wrangler dev) gives only the gateway one.
    const persist = path.resolve(root, process.env.DEV_PERSIST_TO ?? ".wrangler/state");
    const relay = await registryFirer(path.join(persist, "dev-registry"));
    try {
      ({ result, line } = await fireOnce(relay, worker, cron));
    } finally {
      await relay.close();
    }
  }
  console.log(line);
  if (!result.ok) process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
