/**
 * No development-only route answers with the production configuration. The four Workers run in one
 * Miniflare exactly as `npm run deploy` would configure them: the generated production configs (the
 * example settings' vars, placeholder resource ids), generated secrets, no `.dev.vars` and no test
 * bindings (so no DEV_OUTBOX). Every development route (found in the source and in each service's own
 * OpenAPI document) is 404 through the gateway and on each service directly, while the same Workers do
 * answer their ordinary routes. The development cron trigger (`POST /__dev/cron`, src/lib/dev-cron.ts) is
 * among them: 404 on each service and through the gateway, whatever the method, while the same request runs
 * the cron under `npm start` (test/deploy/scheduler-stack.test.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allDatabases } from "../../scripts/databases.mjs";
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
import { buildWorker, root, workerOptions } from "../../scripts/workers.mjs";

/** A development route: the dev outbox and anything named like it or like a seeding/debug door. */
const DEV_PATH = /\/(__dev|_dev|dev|seed|debug|__test|test)(\/|$|\?)/;

/**
 * Production operations whose path merely looks like a door (issue 22 names the webhook test ping's path);
 * each is an authenticated staff operation with its own tests (test/content/webhook-ping.integration.test.ts).
 */
const PRODUCTION_LOOKALIKES = new Set(["/api/v1/sites/{site_id}/webhooks/{id}/test"]);

/** Route path literals of `src/` that look like development routes. */
function devPathsInSource(): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".ts")) {
        for (const m of readFileSync(file, "utf8").matchAll(/["'`](\/(?:api\/)?v1\/[^"'`\s]*)["'`]/g)) {
          if (DEV_PATH.test(m[1]!) && !PRODUCTION_LOOKALIKES.has(m[1]!)) found.add(m[1]!);
        }
      }
    }
  };
  walk(path.join(root, "src"));
  return [...found];
}

/** A concrete request for a route path: `{param}` filled, the outbox's required `to` given. */
const concrete = (p: string) => `${p.replace(/\{[^}]+\}/g, "x")}?to=someone%40example.com`;

let mf: Miniflare;
let dir: string;
// Bundles live under the repo root: workerd refuses module paths that climb out of it.
const buildDir = path.join(root, ".test-build", `deploy-${process.pid}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "production-routes-"));
  const files = writeConfigs(path.join(dir, "configs"), readSettings(EXAMPLE_SETTINGS), placeholderIds());
  // One value of each shared secret for every Worker that shares it, as a deploy uploads it.
  const shared = Object.entries(SHARED_SECRETS).map(([key, { workers, make }]) => ({
    key,
    workers,
    value: make(),
  }));
  const workers = DEPLOY_ORDER.map((name) => {
    // The secrets a deploy generates; the provided ones (provider tokens) stay unset, as on a fresh account.
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
  // The gateway first: it is the entry worker.
  const ordered = [workers[DEPLOY_ORDER.indexOf("gateway")]!, ...workers.filter((w) => w.name !== "gateway")];
  mf = new Miniflare(
    convertV4MiniflareOptions({
      cf: { colo: "DEV", country: "XX", asn: 0 },
      // Only the Workers' errors reach the test output.
      handleStructuredLogs: (log: { level: string; message: string }) => {
        if (log.level === "error") process.stderr.write(`${log.message}\n`);
      },
      workers: ordered.map((w) => ({
        ...w,
        // Nothing reaches the network from here.
        outboundService: () => new Response("no network in this test", { status: 503 }),
      })),
    } as never),
  );
  await mf.ready;
  // Every database of the configs: content's site groups and directory as well (scripts/databases.mjs).
  for (const db of allDatabases()) {
    await applyMigrations(await mf.getD1Database(db.binding, db.service), db.migrations);
  }
});

afterAll(async () => {
  await mf?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
});

/** A request straight to one service, as another Worker's service binding would send it. */
async function direct(name: string, url: string, init?: { method: string }) {
  const worker = (await mf.getWorker(name)) as unknown as {
    fetch(
      url: string,
      init?: { method: string },
    ): Promise<{ status: number; json(): Promise<unknown>; arrayBuffer(): Promise<ArrayBuffer> }>;
  };
  return worker.fetch(url, init);
}

async function openApiDevPaths(): Promise<string[]> {
  const found: string[] = [];
  for (const name of ["identity", "content", "sites"] as const) {
    const res = await direct(name, "http://service/openapi.json");
    expect(res.status, `${name} /openapi.json`).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const [p, operations] of Object.entries(doc.paths)) {
      const tagged = Object.values(operations).some((op) =>
        op.tags?.some((t) => /develop|debug|test/i.test(t)),
      );
      if (tagged || (DEV_PATH.test(p) && !PRODUCTION_LOOKALIKES.has(p))) found.push(p);
    }
  }
  return found;
}

describe("the production configuration", () => {
  it("answers ordinary routes (the Workers are up and the gateway reaches the services)", async () => {
    expect((await mf.dispatchFetch("http://localhost/health")).status).toBe(200);
    expect((await mf.dispatchFetch("http://localhost/.well-known/jwks.json")).status).toBe(200);
    for (const name of ["identity", "content", "sites"] as const) {
      const res = await direct(name, "http://service/health");
      expect(res.status, `${name} /health`).toBe(200);
    }
  });

  it("deploys no development flag", () => {
    for (const name of DEPLOY_ORDER) {
      const config = JSON.parse(readFileSync(path.join(dir, "configs", `${name}.json`), "utf8"));
      expect(
        Object.keys(config.vars).filter((k) => /^DEV_|^TEST_/.test(k)),
        name,
      ).toEqual([]);
    }
  });

  it("answers 404 to every development route, through the gateway and on each service", async () => {
    const paths = [...new Set([...devPathsInSource(), ...(await openApiDevPaths())])];
    // The dev outbox is the one known today; the list must at least hold it (the search works).
    expect(paths).toContain("/api/v1/auth/__dev/outbox");
    // Sites' development proof of a custom host (docs/decisions/host-proof.md): refused in production too.
    expect(paths).toContain("/api/v1/sites/__dev/prove-host");
    for (const p of paths) {
      // Not found, whatever the method (a POST may meet 405 where only GET is routed).
      for (const method of ["GET", "POST"]) {
        const viaGateway = await mf.dispatchFetch(`http://localhost${concrete(p)}`, { method });
        await viaGateway.arrayBuffer();
        expect([404, 405], `${method} ${p} through the gateway`).toContain(viaGateway.status);
        for (const name of ["identity", "content", "sites"] as const) {
          const answer = await direct(name, `http://service${concrete(p)}`, { method });
          await answer.arrayBuffer();
          expect([404, 405], `${method} ${p} on ${name}`).toContain(answer.status);
        }
      }
    }
  });
});

describe("the development cron trigger with the production configuration", () => {
  it("answers 404 on every service and through the gateway, while the services answer", async () => {
    const query = `cron=${encodeURIComponent("* * * * *")}&time=${Date.now()}`;
    for (const name of ["identity", "content", "sites"] as const) {
      const health = await direct(name, "http://service/health");
      await health.arrayBuffer();
      expect(health.status, `${name} /health`).toBe(200);
      for (const method of ["POST", "GET"]) {
        const res = await direct(name, `http://service/__dev/cron?${query}`, { method });
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
