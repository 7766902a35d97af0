/**
 * Node-side (vitest config) description of the four Workers for tests: each built once with esbuild
 * and turned into Miniflare options from its own wrangler config (scripts/workers.mjs, shared with
 * `npm start`), so a test project can run any one of them as the main worker and the other three as
 * auxiliary workers reached over service bindings.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { signingKey } from "../../scripts/dev-vars.mjs";
import { buildWorker, root, services, workerOptions } from "../../scripts/workers.mjs";

export { root, services };
export type ServiceName = keyof typeof services;

function testSigningKeys(): string {
  return JSON.stringify({ current: signingKey("test-current"), next: signingKey("test-next") });
}

/** Secrets and dev-only settings every worker gets in tests (as `npm start` writes them to .dev.vars). */
export const testSecrets: Record<string, string> = {
  JWT_SIGNING_KEYS: testSigningKeys(),
  OTP_PEPPER: randomBytes(32).toString("base64url"),
  API_KEY_PEPPER: randomBytes(32).toString("base64url"),
  CURSOR_SECRET: randomBytes(32).toString("base64url"),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
  SSO_SECRET_KEY: randomBytes(32).toString("base64url"),
  // The gateway's HMAC over the edge headers; every worker gets the same value (src/lib/edge-trust.ts).
  EDGE_HMAC_SECRET: randomBytes(32).toString("base64url"),
  DEV_OUTBOX: "true",
  // Test-only overrides of wrangler vars: short ingest wait, fake DNS-over-HTTPS and breach-check hosts.
  IMAGE_INGEST_TIMEOUT_MS: "1500",
  DOH_URL: "https://dns.test/dns-query",
  BREACH_CHECK_URL: "https://breach.test/range/",
  // Webhook attempts give up after 1 s, and failed ones are retried at once (the schedule has unit tests).
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RETRY_BASE_SECONDS: "0",
  // Sites' fleet addresses in tests (documentation ranges), as test/support/dns-answers.ts records them.
  PLATFORM_IPV4: "192.0.2.10,192.0.2.11",
  PLATFORM_IPV6: "2001:db8::10",
};

export { testOnlySettings } from "./test-only-settings.ts";

/**
 * This vitest process's own folder: `npm test` runs two vitest processes with workerd projects at once, and
 * each builds the four Workers when its config loads.
 */
const buildDir = path.join(root, ".test-build", `vitest-${process.pid}`);
process.on("exit", () => rmSync(buildDir, { recursive: true, force: true }));

const bundles = new Map<ServiceName, string>();

/** Each worker bundled once per vitest run (every workerd project runs three of them beside its main). */
function built(name: ServiceName): string {
  let file = bundles.get(name);
  if (!file) {
    file = buildWorker(name, buildDir);
    bundles.set(name, file);
  }
  return file;
}

/**
 * An auxiliary worker. The plugin renames the worker under test to its runner, so auxiliary workers'
 * bindings that name it are pointed at the runner (calls back into the main worker reach it).
 */
export function auxiliaryWorker(
  name: ServiceName,
  main: { name: ServiceName; runner: string },
  bindings: Record<string, string> = testSecrets,
) {
  return workerOptions(name, {
    scriptPath: built(name),
    bindings,
    rename: { [main.name]: main.runner },
  });
}

/**
 * The worker's consumers of `queues` as its wrangler config declares them (batch size, retries, dead-letter
 * queue, retry delay), except that a batch leaves at once: Miniflare otherwise holds a batch that is not
 * full for 1 s (`max_batch_timeout`), so every queue hop of a test cost a second of waiting.
 */
export function promptQueueConsumers(name: ServiceName, queues: string[]) {
  const { workerOptions: options } = unstable_getMiniflareWorkerOptions(
    path.join(root, services[name].config),
  );
  const declared = (options.queueConsumers ?? {}) as Record<string, Record<string, unknown>>;
  return Object.fromEntries(
    queues.map((queue) => {
      if (!declared[queue]) throw new Error(`${name} consumes no queue ${queue}`);
      return [queue, { ...declared[queue], maxBatchTimeout: 0 }];
    }),
  );
}
