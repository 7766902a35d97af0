// Every port a stack of the platform listens on, in one place: the four Workers (8787-8790 + offset,
// scripts/workers.mjs) and, for `npm start` (scripts/start.mjs), its local OpenID provider (8791 + offset,
// scripts/sso-demo.mjs). The bench runs up to three stacks (`bench:ab` two) beside a developer's `npm start` (offset 0);
// its offsets keep all of them apart (test/deploy/bench-ports.test.ts).
import { createServer } from "node:net";
import { SSO_DEMO_PORT } from "../scripts/sso-demo.mjs";
import { serviceNames, services } from "../scripts/workers.mjs";

/** The bench's default offset: its stacks at 9787 and up, `npm start` at 8787-8791, browser tests at 10787. */
export const BENCH_PORT_OFFSET = 1000;
/** The memory row's `npm start` (bench/start-memory.mjs): the bench's offset + 50. */
export const MEMORY_STACK_OFFSET = 50;
/** The local-limiters stack (bench/run.mjs): the bench's offset + 100. */
export const LOCAL_LIMITERS_STACK_OFFSET = 100;
/** The fleet section's stack of 5 content groups (bench/fleet.mjs): the bench's offset + 150. */
export const FLEET_STACK_OFFSET = 150;
/** `npm run bench:ab`'s two stacks, started together (bench/ab.mjs): the bench's offset + 200 and + 250. */
export const AB_STACK_OFFSETS = { before: 200, after: 250 };

/** The four Workers' ports of a stack started by scripts/platform.mjs at `portOffset`. */
export function platformPorts(portOffset) {
  return serviceNames.map((name) => services[name].port + portOffset);
}

/** Every port `npm start` (PORT_OFFSET=`portOffset`) listens on: the Workers and the SSO demo's provider. */
export function startPorts(portOffset = 0) {
  return [...platformPorts(portOffset), SSO_DEMO_PORT + portOffset];
}

/** Every port of each stack the bench starts at `portOffset`. */
export function benchPorts(portOffset = BENCH_PORT_OFFSET) {
  return {
    bench: platformPorts(portOffset),
    memory: startPorts(portOffset + MEMORY_STACK_OFFSET),
    local_limiters: platformPorts(portOffset + LOCAL_LIMITERS_STACK_OFFSET),
    fleet: platformPorts(portOffset + FLEET_STACK_OFFSET),
    ab_before: platformPorts(portOffset + AB_STACK_OFFSETS.before),
    ab_after: platformPorts(portOffset + AB_STACK_OFFSETS.after),
  };
}

/** Refuses at once, naming the port and the way out, when another process holds one of `ports`. */
export async function assertPortsFree(ports, host = "127.0.0.1") {
  for (const port of ports) {
    const server = createServer();
    const error = await new Promise((resolve) => {
      server.once("error", resolve);
      server.listen(port, host, () => server.close(() => resolve(null)));
    });
    if (error) {
      throw new Error(
        `port ${port} is in use (${error.code}): the bench listens on ${ports.join(", ")}; choose other ports with --port-offset N`,
      );
    }
  }
}
