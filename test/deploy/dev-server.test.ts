/**
 * `npm run dev` (scripts/dev.mjs): `wrangler dev` with the four configs, through the project's wrangler
 * runner on this Node, on a throwaway store and a port of its own. It applies the migrations, seeds the
 * demo tenant on the empty store and serves the gateway, through which every API, the docs pages (with
 * the reference's script) and the dev outbox answer; the printed demo key works. (Reload on save is a
 * manual check, docs/decisions/developer-experience.md: editing sources under a running suite would change what the
 * other projects build.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../scripts/workers.mjs";

const port = 20_000 + Math.floor(Math.random() * 9_000);
const gateway = `http://127.0.0.1:${port}`;
const store = mkdtempSync(path.join(tmpdir(), "dev-server-"));
let child: ChildProcess;
let output = "";

beforeAll(async () => {
  child = spawn(process.execPath, [path.join(root, "scripts/dev.mjs")], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DEV_PORT: String(port),
      DEV_INSPECTOR_PORT: String(port + 1),
      DEV_PERSIST_TO: store,
    },
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("Ctrl-C stops everything")) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`npm run dev exited ${child.exitCode}:\n${output}`));
      }
    }, 200);
  });
}, 150_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  }
  rmSync(store, { recursive: true, force: true });
});

const status = async (p: string, init?: RequestInit) => (await fetch(`${gateway}${p}`, init)).status;

describe("npm run dev", () => {
  it("applied the migrations and seeded the demo tenant: its printed key writes through the gateway", async () => {
    expect(output).toMatch(/migrations identity: 0001_init\.sql/);
    // Content's site groups and their directory, each migrated (docs/decisions/site-groups.md).
    for (const name of ["content-g000", "content-g001"]) {
      expect(output).toMatch(new RegExp(`migrations ${name}: 0001_init\\.sql`));
    }
    expect(output).toMatch(/migrations content-directory: 0001_directory\.sql/);
    const secret = /"secret": "(ck_[^"]+)"/.exec(output)?.[1];
    expect(secret, output).toBeTruthy();
    expect(await status("/v1/posts", { headers: { authorization: `Bearer ${secret}` } })).toBe(200);
    expect(await status("/api/v1/auth/__dev/outbox?to=someone%40example.com")).toBe(200);
  });

  it("serves the gateway: ready, every docs page with its script and document, the hosted pages", async () => {
    expect(await status("/ready")).toBe(200);
    for (const p of ["/docs", "/docs/assets/api-reference.js", "/auth/sign-in"]) {
      expect(await status(p), p).toBe(200);
    }
    for (const service of ["identity", "content", "sites"]) {
      expect(await status(`/docs/${service}`), service).toBe(200);
      const doc = await fetch(`${gateway}/docs/${service}/openapi.json`);
      expect(doc.status).toBe(200);
      expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    }
  });
});
