import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig, defineProject } from "vitest/config";
import { loadCorpora, loadSpecTexts } from "./test/support/corpora.ts";
import { fakeInternet } from "./test/support/fake-internet.ts";
import { auxiliaryWorker, root, type ServiceName, services, testSecrets } from "./test/support/workers.ts";

const migrations = {
  identity: await readD1Migrations(path.join(root, "migrations/identity")),
  content: await readD1Migrations(path.join(root, "migrations/content")),
  sites: await readD1Migrations(path.join(root, "migrations/sites")),
};

const corpora = JSON.stringify(await loadCorpora());
const specs = JSON.stringify(loadSpecTexts());

/**
 * One project per worker: that worker is the main (its tests import `exports` and `env` from
 * `cloudflare:workers`), the other three run beside it as auxiliary workers over real service
 * bindings. Every project binds all three databases (same ids as the workers use) so the setup file
 * can apply every service's migrations.
 */
function project(main: ServiceName, testDir: string) {
  const others = (Object.keys(services) as ServiceName[]).filter((s) => s !== main);
  return defineProject({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: path.join(root, services[main].config) },
        miniflare: {
          bindings: {
            ...testSecrets,
            TEST_MIGRATIONS: JSON.stringify(migrations),
            TEST_CORPORA: corpora,
            TEST_SPECS: specs,
          },
          d1Databases: {
            TEST_IDENTITY_DB: "identity-db",
            TEST_CONTENT_DB: "content-db",
            TEST_SITES_DB: "sites-db",
          },
          outboundService: fakeInternet,
          // Content's tests send `site.transferred` through the real queue, as identity does.
          ...(main === "content"
            ? { queueProducers: { TEST_SITE_TRANSFERRED: { queueName: "site-transferred" } } }
            : {}),
          workers: others.map((name) => ({
            ...auxiliaryWorker(name, { name: main, runner: `vitest-plugin-runner-${testDir}` }),
            outboundService: fakeInternet,
          })),
        },
      }),
    ],
    test: {
      name: testDir,
      include: [`test/${testDir}/**/*.test.ts`],
      setupFiles: [path.join(root, "test/support/apply-migrations.ts")],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}

export default defineConfig({
  test: {
    // Every 4xx is a log line now; the logs of a failed test are still printed.
    silent: "passed-only",
    projects: [
      project("identity", "identity"),
      project("content", "content"),
      project("sites", "sites"),
      project("gateway", "gateway"),
      project("gateway", "e2e"),
      // Real clients in Node: Chromium (playwright-core) against the whole platform as `npm start` runs it,
      // the MCP SDK client, openid-client. One file at a time: each opens a browser.
      defineProject({
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: [path.join(root, "test/support/browser-platform.ts")],
          fileParallelism: false,
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
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      }),
      // Rules about the code itself (catalogues against the specs, structure), run in Node.
      defineProject({
        test: { name: "structure", include: ["test/structure/**/*.test.ts"], environment: "node" },
      }),
    ],
  },
});
