/**
 * `npm run seed` any number of times in a row: one demo owner is signed up on the first run and signed
 * in on every later one (its session, else password + TOTP), so repeated runs spend no signup quota and
 * replay no TOTP step; each run prints keys that work, the same keys every run (a `pk_` embedded in a page
 * survives a rerun for a fresh token) until `--rotate-keys`, which revokes them. The seed sends what a
 * developer's machine sends (no forged client address).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Demo, type DemoSession, seedDemo } from "../../scripts/seed.mjs";
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
  const runs: (Demo & { session: DemoSession })[] = [];

  it("succeeds six times in a row as the same owner, each run with the same working keys and a fresh session", async () => {
    for (let i = 0; i < 6; i++) {
      const demo = await seedDemo(platform().urls.gateway, { stateFile });
      await expectWorkingKeys(demo);
      runs.push(demo);
    }
    // One signup in all: every run is the same owner, organization, site and keys; the session is new.
    expect(new Set(runs.map((d) => d.user.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.user.email)).size).toBe(1);
    expect(new Set(runs.map((d) => d.site.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.org.id)).size).toBe(1);
    expect(new Set(runs.map((d) => d.keys.secret)).size).toBe(1);
    expect(new Set(runs.map((d) => d.keys.public)).size).toBe(1);
    expect(new Set(runs.map((d) => d.session.refresh_token)).size).toBe(6);
    // The state file holds the keys' plaintext: readable by its owner only.
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
  });

  it("--rotate-keys mints a new pair and the earlier keys stop working at once", async () => {
    const base = platform().urls.gateway;
    const before = runs.at(-1)!;
    const rotated = await seedDemo(base, { stateFile, rotateKeys: true });
    expect(rotated.keys.secret).not.toBe(before.keys.secret);
    expect(rotated.keys.public).not.toBe(before.keys.public);
    await expectWorkingKeys(rotated);
    const old = await fetch(`${base}/v1/posts`, {
      headers: { authorization: `Bearer ${before.keys.secret}` },
    });
    expect(old.status).toBe(401);
    // The next plain run keeps the rotated pair.
    const again = await seedDemo(base, { stateFile });
    expect(again.keys).toEqual(rotated.keys);
    runs.push(again);
  });

  it("mints new keys when the stored ones were revoked by hand", async () => {
    const base = platform().urls.gateway;
    const before = runs.at(-1)!;
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as Record<string, { keys: { ids: string[] } }>;
    const session = before.session.access_token;
    for (const id of state[base]!.keys.ids) {
      const res = await fetch(`${base}/api/v1/sites/${before.site.id}/api-keys/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${session}` },
      });
      expect(res.status).toBe(204);
    }
    const demo = await seedDemo(base, { stateFile });
    expect(demo.keys.secret).not.toBe(before.keys.secret);
    await expectWorkingKeys(demo);
    runs.push(demo);
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
