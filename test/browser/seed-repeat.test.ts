/**
 * `npm run seed` any number of times in a row: one demo owner is signed up on the first run and signed
 * in on every later one (its session, else password + TOTP), so repeated runs spend no signup quota and
 * replay no TOTP step; each run prints keys that work. The seed sends what a developer's machine sends
 * (no forged client address).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Demo, seedDemo } from "../../scripts/seed.mjs";
import { platform } from "../support/browser";

const dir = mkdtempSync(path.join(tmpdir(), "seed-state-"));
const stateFile = path.join(dir, "demo-owner.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function expectWorkingKeys(demo: Demo) {
  const { gateway } = platform().urls;
  expect(demo.keys.secret).toMatch(/^ck_/);
  const posts = await fetch(`${gateway}/v1/posts`, {
    headers: { authorization: `Bearer ${demo.keys.secret}` },
  });
  expect(posts.status).toBe(200);
  expect(demo.keys.public).toMatch(/^pk_/);
  const read = await fetch(`${gateway}/v1/posts`, {
    headers: { authorization: `Bearer ${demo.keys.public}`, origin: "http://localhost:5173" },
  });
  expect(read.status).toBe(200);
}

type StoredEntry = { user: { email: string }; refresh_token: string; totp_step?: number };
const stored = () => JSON.parse(readFileSync(stateFile, "utf8")) as Record<string, StoredEntry>;

describe("npm run seed, again and again", () => {
  const runs: Demo[] = [];

  it("succeeds six times in a row as the same owner, each run with working keys", async () => {
    for (let i = 0; i < 6; i++) {
      const demo = await seedDemo(platform().urls.gateway, { stateFile });
      await expectWorkingKeys(demo);
      runs.push(demo);
    }
    // One signup in all: every run is the same owner, organization and site; the keys are new each run.
    expect(new Set(runs.map((d) => d.user.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.user.email)).size).toBe(1);
    expect(new Set(runs.map((d) => d.site.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.org.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.keys.secret)).size).toBe(6);
  });

  it("signs in with password and TOTP when the stored session is gone", async () => {
    const state = stored();
    const base = platform().urls.gateway;
    state[base]!.refresh_token = "not-a-refresh-token";
    writeFileSync(stateFile, JSON.stringify(state));
    const demo = await seedDemo(base, { stateFile });
    expect(demo.user.id).toBe(runs[0]!.user.id);
    expect(demo.site.id).toBe(runs[0]!.site.id);
    await expectWorkingKeys(demo);
    expect(stored()[base]!.refresh_token).not.toBe("not-a-refresh-token");
  }, 90_000);

  it("signs up a new owner when the platform does not know the stored one (a new store)", async () => {
    const base = platform().urls.gateway;
    const state = stored();
    state[base] = {
      ...state[base]!,
      user: { ...state[base]!.user, email: `gone-${Date.now()}@demo.example` },
      refresh_token: "",
      totp_step: undefined,
    };
    writeFileSync(stateFile, JSON.stringify(state));
    const demo = await seedDemo(base, { stateFile });
    expect(demo.user.id).not.toBe(runs[0]!.user.id);
    expect(demo.site.id).not.toBe(runs[0]!.site.id);
    await expectWorkingKeys(demo);
  });
});
