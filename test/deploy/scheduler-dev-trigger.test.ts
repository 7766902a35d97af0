/**
 * The development cron trigger (`POST /__dev/cron`, src/lib/dev-cron.ts) in a deploy: the four Workers as
 * `npm run deploy` configures them (the generated production configs, generated secrets, no `.dev.vars`,
 * so no DEV_OUTBOX) answer 404 to it on each service and through the gateway, whatever the method; the
 * same request runs the cron under `npm start` (test/deploy/scheduler-stack.test.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConfigs } from "../../scripts/deploy.mjs";
import {
  DEPLOY_ORDER,
  EXAMPLE_SETTINGS,
  placeholderIds,
  readSettings,
  SECRETS,
  SHARED_SECRETS,
} from "../../scripts/deploy-config.mjs";
import { applyMigrations } from "../../scripts/migrate.mjs";
import { buildWorker, root, services, workerOptions } from "../../scripts/workers.mjs";

let mf: Miniflare;
let dir: string;
const buildDir = path.join(root, ".test-build", `dev-cron-${process.pid}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "dev-cron-"));
  const files = writeConfigs(path.join(dir, "configs"), readSettings(EXAMPLE_SETTINGS), placeholderIds());
  const shared = Object.entries(SHARED_SECRETS).map(([key, { workers, make }]) => ({
    key,
    workers,
    value: make(),
  }));
  const workers = DEPLOY_ORDER.map((name) => {
    const secrets = Object.fromEntries([
      ...Object.entries(SECRETS[name].generated).map(([key, make]) => [key, make()]),
      ...shared.filter((s) => s.workers.includes(name)).map((s) => [s.key, s.value]),
    ]);
    return workerOptions(name, {
      scriptPath: buildWorker(name, buildDir),
      bindings: secrets,
      config: files[name],
    });
  });
  const ordered = [workers[DEPLOY_ORDER.indexOf("gateway")]!, ...workers.filter((w) => w.name !== "gateway")];
  mf = new Miniflare(
    convertV4MiniflareOptions({
      cf: { colo: "DEV", country: "XX", asn: 0 },
      handleStructuredLogs: (log: { level: string; message: string }) => {
        if (log.level === "error") process.stderr.write(`${log.message}\n`);
      },
      workers: ordered.map((w) => ({
        ...w,
        outboundService: () => new Response("no network in this test", { status: 503 }),
      })),
    } as never),
  );
  await mf.ready;
  for (const name of DEPLOY_ORDER) {
    const database = services[name].database;
    if (database) await applyMigrations(await mf.getD1Database("DB", name), database);
  }
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
});

describe("the development cron trigger with the production configuration", () => {
  it("answers 404 on every service and through the gateway, while the services answer", async () => {
    const query = `cron=${encodeURIComponent("* * * * *")}&time=${Date.now()}`;
    for (const name of ["identity", "content", "sites"] as const) {
      const worker = (await mf.getWorker(name)) as unknown as {
        fetch(
          url: string,
          init?: { method: string },
        ): Promise<{ status: number; arrayBuffer(): Promise<ArrayBuffer> }>;
      };
      const health = await worker.fetch("http://service/health");
      await health.arrayBuffer();
      expect(health.status, `${name} /health`).toBe(200);
      for (const method of ["POST", "GET"]) {
        const res = await worker.fetch(`http://service/__dev/cron?${query}`, { method });
        await res.arrayBuffer();
        expect(res.status, `${method} /__dev/cron on ${name}`).toBe(404);
      }
    }
    for (const method of ["POST", "GET"]) {
      const res = await mf.dispatchFetch(`http://localhost/__dev/cron?${query}`, { method });
      await res.arrayBuffer();
      expect(res.status, `${method} /__dev/cron through the gateway`).toBe(404);
    }
  });
});
