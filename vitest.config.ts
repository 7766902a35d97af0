import { existsSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig, defineProject } from "vitest/config";
import { loadCorpora, loadSpecTexts } from "./test/support/corpora.ts";
import { fakeInternet } from "./test/support/fake-internet.ts";
import "./test/support/plain-websockets.ts";
import { nodeUnitFiles } from "./test/support/unit-files.ts";
import {
  auxiliaryWorker,
  promptQueueConsumers,
  root,
  type ServiceName,
  services,
  testOnlySettings,
  testSecrets,
} from "./test/support/workers.ts";

const migrations = {
  identity: await readD1Migrations(path.join(root, "migrations/identity")),
  content: await readD1Migrations(path.join(root, "migrations/content")),
  "content-directory": await readD1Migrations(path.join(root, "migrations/content-directory")),
  sites: await readD1Migrations(path.join(root, "migrations/sites")),
};

const corpora = JSON.stringify(await loadCorpora());
const specs = JSON.stringify(loadSpecTexts());

/**
 * The unit files of the workerd projects that import nothing from `cloudflare:` (directly or through
 * their relative imports) run in the `unit` project, in Node threads; the others stay in workerd.
 * `test/lib/` (the shared code of src/lib) has unit files only, all in Node.
 */
/**
 * The timing and enumeration tests (signup's equal cost, login refusals' equal timing, the dummy hash's
 * equal cost) keep the production scrypt cost and run in the `timing` project, after every other project
 * has finished (`sequence.groupOrder`), so two busy cores do not blur them.
 */
const timingFiles = [
  "test/identity/timing.security.test.ts",
  "test/identity/password-hash.unit.test.ts",
  // Identity's outbound deadlines at their production values (no TEST_OUTBOUND_DEADLINE_MS here).
  "test/identity/outbound-deadlines.security.test.ts",
];

/**
 * The sites files that run the hourly sweep (HEALTH_CRON: every visible site of the database, DNS checks of
 * every held host, one cache write per site). In the `sites` runtime that sweep would walk every site the
 * project's other files made before it (hundreds: a sweep that took 2 s alone took 17 s late in the run), so
 * they share a runtime of their own (`sites-fleet`), where the fleet is only theirs.
 */
const fleetFiles = [
  "test/sites/dns-check.integration.test.ts",
  "test/sites/domain-ownership.integration.test.ts",
  "test/sites/health.integration.test.ts",
  "test/sites/host-proof.integration.test.ts",
];

/**
 * The timing project's outbound service: the fake internet, plus the harness's gate (test/support/timing-gate.ts):
 * `https://harness.test/timing-gate` answers once the file `TEST_TIMING_GATE` names exists (npm test writes it
 * when every other project has ended), at once when the variable is unset.
 */
async function timingGateService(request: Request): Promise<Response> {
  if (new URL(request.url).hostname !== "harness.test") return fakeInternet(request);
  const signal = process.env.TEST_TIMING_GATE;
  while (signal && !existsSync(signal)) await new Promise((resolve) => setTimeout(resolve, 100));
  return new Response("open");
}

const nodeUnits = nodeUnitFiles(root, ["identity", "content", "sites", "gateway", "lib"]).filter(
  (file) => !timingFiles.includes(file),
);

/**
 * The typed client package (packages/client) by its name, from its source: its package.json points at the
 * built dist/, which only `npm pack` makes (tsconfig.json's `paths` says the same to tsc).
 */
const resolve = {
  alias: { "@site-platform/client": path.join(root, "packages/client/src/index.ts") },
};

/** Only these projects have files that read the attack corpora (TEST_CORPORA, 6.9 MB of JSON). */
const corporaProjects = new Set(["content", "sites", "gateway"]);

interface ProjectOptions {
  name?: string;
  include?: string[];
  /** No test-only settings (test/support/test-only-settings.ts): production scrypt cost and deadlines. */
  productionCost?: boolean;
  /** Samples wait for the harness's signal that nothing else runs (test/support/timing-gate.ts). */
  gated?: boolean;
  groupOrder?: number;
  maxWorkers?: number;
}

/**
 * One project per worker: that worker is the main (its tests import `exports` and `env` from
 * `cloudflare:workers`), the other three run beside it as auxiliary workers over real service
 * bindings. Every project binds all three databases (same ids as the workers use) so the setup file
 * can apply every service's migrations.
 *
 * `isolate: false`: the files of a project share one runtime per vitest worker (the four workers, the
 * three migrated databases) instead of a fresh one per file. D1, KV and Durable Object state carries
 * across files, so every test makes its own tenants, addresses and client IPs (test/support helpers).
 */
function project(main: ServiceName, testDir: string, options: ProjectOptions = {}) {
  const name = options.name ?? testDir;
  const others = (Object.keys(services) as ServiceName[]).filter((s) => s !== main);
  const secrets = options.productionCost ? testSecrets : { ...testSecrets, ...testOnlySettings };
  return defineProject({
    resolve,
    plugins: [
      cloudflareTest({
        wrangler: { configPath: path.join(root, services[main].config) },
        miniflare: {
          bindings: {
            ...secrets,
            TEST_MIGRATIONS: JSON.stringify(migrations),
            ...(corporaProjects.has(name) ? { TEST_CORPORA: corpora } : {}),
            TEST_SPECS: specs,
          },
          d1Databases: {
            TEST_IDENTITY_DB: "identity-db",
            // Content's site groups and their directory (workers/content/wrangler.toml, issue 38).
            TEST_CONTENT_G000: "content-g000",
            TEST_CONTENT_G001: "content-g001",
            TEST_CONTENT_DIRECTORY: "content-directory",
            TEST_SITES_DB: "sites-db",
          },
          outboundService: options.gated ? timingGateService : fakeInternet,
          // Content's tests send `site.transferred` through the real queue, as identity does; its events
          // queue (webhook fan-out and attempts) hands each batch over at once.
          ...(main === "content"
            ? {
                queueProducers: { TEST_SITE_TRANSFERRED: { queueName: "site-transferred" } },
                queueConsumers: promptQueueConsumers("content", ["content-events", "content-events-dlq"]),
              }
            : {}),
          workers: others.map((other) => ({
            ...auxiliaryWorker(other, { name: main, runner: `vitest-plugin-runner-${name}` }, secrets),
            outboundService: fakeInternet,
          })),
        },
      }),
    ],
    test: {
      name,
      include: options.include ?? [`test/${testDir}/**/*.test.ts`],
      exclude: options.include ? [] : [...nodeUnits, ...timingFiles, ...fleetFiles],
      setupFiles: [
        path.join(root, "test/support/apply-migrations.ts"),
        ...(options.gated ? [path.join(root, "test/support/timing-gate.ts")] : []),
      ],
      isolate: false,
      sequence: { groupOrder: options.groupOrder ?? 0 },
      ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}

export default defineConfig({
  test: {
    // Every 4xx is a log line now; the logs of a failed test are still printed.
    silent: "passed-only",
    // Two runtimes at a time on the two cores (the default would be one: cores - 1).
    maxWorkers: 2,
    projects: [
      project("identity", "identity"),
      project("content", "content"),
      project("sites", "sites"),
      project("sites", "sites", { name: "sites-fleet", include: fleetFiles }),
      project("gateway", "gateway"),
      project("gateway", "e2e"),
      project("identity", "identity", {
        name: "timing",
        include: timingFiles,
        productionCost: true,
        gated: true,
        groupOrder: 1,
        maxWorkers: 1,
      }),
      // The binding-free unit files of the four services, in Node.
      defineProject({
        resolve,
        test: { name: "unit", include: nodeUnits, environment: "node", pool: "threads", isolate: false },
      }),
      // Real clients in Node: Chromium (playwright-core) against the whole platform as `npm start` runs it,
      // the MCP SDK client, openid-client. One file at a time: each opens a browser.
      defineProject({
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: [path.join(root, "test/support/browser-platform.ts")],
          fileParallelism: false,
          isolate: false,
          // One worker (files one at a time, in one process): a group of its own, after the others, in a
          // single `vitest run` or `vitest list` (vitest refuses projects of one group with different
          // worker counts).
          sequence: { groupOrder: 2 },
          // A page's state (a table filled after its fetches) polled for up to 15 s, not vitest's 1 s: on two
          // busy cores a render took longer (passkey-first.test.ts, a run beside other work); a poll that
          // passes still returns at once.
          expect: { poll: { timeout: 15_000 } },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      }),
      // The deploy (scripts/deploy.mjs) against a fake account, and the four Workers as the generated
      // production configs describe them (no .dev.vars, no test secrets): no development route answers.
      defineProject({
        test: {
          name: "deploy",
          include: ["test/deploy/**/*.test.ts"],
          environment: "node",
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      }),
      // Rules about the code itself (catalogues against the specs, structure), run in Node.
      defineProject({
        test: {
          name: "structure",
          include: ["test/structure/**/*.test.ts"],
          environment: "node",
          isolate: false,
        },
      }),
    ],
  },
});
