/**
 * Schedules under `npm start` (issue 36): the whole platform as scripts/start.mjs runs it (scripts/platform.mjs
 * on free ports and a throwaway store, with the scheduler start.mjs runs), a webhook pointing at a receiver
 * in this test, and a post scheduled 25 s ahead: its `post.published` reaches the receiver within 90 s of its
 * time with nobody firing anything by hand. The development trigger answers on the service's own port and
 * the gateway never routes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform } from "../../scripts/platform.mjs";
import { devTriggerFirer, runSchedules } from "../../scripts/scheduler.mjs";
import { seedDemo } from "../../scripts/seed.mjs";
import { root } from "../../scripts/workers.mjs";
import { routeFor } from "../../src/gateway/routes";
import { testOnlySettings } from "../support/test-only-settings";

interface Received {
  at: number;
  body: { type?: string; data?: { id?: string }; post?: { id?: string }; post_id?: string };
  raw: string;
}

/** Whether a TCP port of 127.0.0.1 is free now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port offset where the four Workers' ports (8787-8790 + offset) are all free. */
async function freeOffset(): Promise<number> {
  for (let offset = 3100 + (process.pid % 50) * 10; offset < 6000; offset += 10) {
    const ports = [8787, 8788, 8789, 8790].map((p) => p + offset);
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return offset;
  }
  throw new Error("no free port offset");
}

let mf: Miniflare;
let urls: Record<"gateway" | "identity" | "content" | "sites", string>;
let persist: string;
let schedules: { stop(): void };
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const cronLines: string[] = [];
const distDir = path.join(root, ".test-build", `scheduler-${process.pid}`);

beforeAll(async () => {
  persist = mkdtempSync(path.join(tmpdir(), "platform-scheduler-"));
  ({ mf, urls } = await startPlatform({
    persist,
    portOffset: await freeOffset(),
    distDir,
    // The demo owner's sign-up at the tests' password cost (the flow, not the hash, is under test).
    extraBindings: { identity: testOnlySettings },
    handleStructuredLogs: (log) => {
      if (log.level === "error") process.stderr.write(`${log.message}\n`);
    },
  }));
  schedules = runSchedules({ fire: devTriggerFirer(urls), log: (line) => cronLines.push(line) });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ at: Date.now(), body: JSON.parse(raw), raw });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`;
}, 240_000);

afterAll(async () => {
  schedules?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await mf?.dispose();
  if (persist) rmSync(persist, { recursive: true, force: true });
  rmSync(distDir, { recursive: true, force: true });
});

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text) as T;
}

describe("the development cron trigger", () => {
  it("runs a service's scheduled handler on its own port, and the gateway never routes it", async () => {
    const query = `cron=${encodeURIComponent("*/5 * * * *")}&time=${Date.now()}`;
    const run = await fetch(`${urls.sites}/__dev/cron?${query}`, { method: "POST" });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ cron: "*/5 * * * *", outcome: "ok" });
    const bad = await fetch(`${urls.identity}/__dev/cron?cron=hourly`, { method: "POST" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "BAD_REQUEST" });
    expect(routeFor("/__dev/cron")).toBeNull();
    for (const method of ["GET", "POST"]) {
      const viaGateway = await fetch(`${urls.gateway}/__dev/cron?${query}`, { method });
      await viaGateway.arrayBuffer();
      expect(viaGateway.status, `${method} through the gateway`).toBe(404);
    }
  });
});

describe("schedules under npm start", () => {
  it("delivers a scheduled post's post.published to a webhook within 90 s of its time, with no manual trigger", async () => {
    const demo = await seedDemo(urls.gateway, { fresh: true, stateFile: path.join(persist, "demo.json") });
    const bearer = {
      authorization: `Bearer ${demo.session.access_token}`,
      "content-type": "application/json",
    };
    const hook = await fetch(`${urls.gateway}/api/v1/sites/${demo.site.id}/webhooks`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ url: receiverUrl, events: ["post.published"] }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    const due = Date.now() + 25_000;
    const post = await json<{ id: string; status: string }>(
      await fetch(`${urls.gateway}/v1/posts`, {
        method: "POST",
        headers: { authorization: `Bearer ${demo.keys.secret}`, "content-type": "application/json" },
        body: JSON.stringify({
          title: "Scheduled for the scheduler",
          status: "scheduled",
          published_at: new Date(due).toISOString(),
        }),
      }),
    );
    expect(post.status).toBe("scheduled");
    const mentions = (r: Received) => r.body.type === "post.published" && r.raw.includes(post.id);
    while (!received.some(mentions) && Date.now() < due + 90_000) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const delivery = received.find(mentions);
    expect(
      delivery,
      `no post.published by ${new Date(due + 90_000).toISOString()}; cron: ${cronLines.join(" | ")}`,
    ).toBeDefined();
    expect(delivery!.at - due).toBeLessThanOrEqual(90_000);
    // It was the scheduler: its per-minute run of content fired, and said so.
    expect(
      cronLines.some((l) =>
        /^\[cron\] content "\* \* \* \* \*" at \d\d:\d\dZ: ok \(200\) in \d+ ms$/.test(l),
      ),
    ).toBe(true);
  }, 180_000);
});
