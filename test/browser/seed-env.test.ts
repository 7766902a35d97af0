/**
 * From zero to a dashboard call, as the README tells it: the README's "Try it" block (`eval "$(npm run -s
 * seed -- --env)"`, then its curls: API keys, the staff session, the refresh call) runs in bash, twice
 * in a row, against the browser project's platform; every curl must answer 2xx. `npm run seed -- --json`
 * (no `-s`) prints the JSON alone on stdout. A rerun keeps the demo keys (a page's `pk_` survives it) and
 * prints a fresh staff session.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../../scripts/workers.mjs";
import { platform } from "../support/browser";
import { runProcess } from "../support/browser-processes";

const dir = mkdtempSync(path.join(tmpdir(), "seed-env-"));
const stateFile = path.join(dir, "demo-owner.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's shell block that starts with the seed's `--env`, aimed at this platform. */
function readmeBlock(gateway: string): string {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes('eval "$(npm run -s seed -- --env)"'));
  if (!block) throw new Error("README: no sh block with the seed's --env");
  // Only the request URLs move; the Origin headers stay the demo key's allowlisted origin.
  return block.replaceAll("http://127.0.0.1:8787/", `${gateway}/`);
}

/** The script in bash, asynchronously (test/support/browser-processes.ts says why never synchronously here). */
function bash(script: string) {
  return runProcess("bash", ["-c", script], {
    cwd: root,
    env: { ...process.env, PLATFORM_URL: platform().urls.gateway, SEED_STATE_FILE: stateFile },
    timeoutMs: 90_000,
  });
}

describe("the README's first calls after npm run seed -- --env", () => {
  it("run twice in a row: every curl answers 2xx; the second run keeps the first run's keys", async () => {
    const { gateway } = platform().urls;
    // Every curl fails the script on an HTTP error; the last line reports what the block left set.
    const script = `set -euo pipefail
curl() { command curl --fail-with-body "$@"; }
${readmeBlock(gateway)}
echo "::$SECRET_KEY::$PUBLIC_KEY::$ACCESS_TOKEN::$SITE_ID"`;
    // One after the other: the second run reuses the first run's keys, with a session of its own.
    const runs = [await bash(script), await bash(script)];
    const vars = runs.map((run) => {
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const [, secret, publicKey, access, siteId] = run.stdout.trim().split("\n").at(-1)!.split("::");
      return { secret: secret!, publicKey: publicKey!, access: access!, siteId: siteId! };
    });
    const [first, second] = vars as [(typeof vars)[0], (typeof vars)[0]];
    expect(second.siteId).toBe(first.siteId);
    expect(second.secret).toBe(first.secret);
    expect(second.publicKey).toBe(first.publicKey);
    expect(second.access).not.toBe(first.access);
    const posts = (key: string) =>
      fetch(`${gateway}/v1/posts`, { headers: { authorization: `Bearer ${key}` } });
    expect((await posts(second.secret)).status).toBe(200);
    // One demo pair left on the site.
    const keys = await fetch(`${gateway}/api/v1/sites/${second.siteId}/api-keys`, {
      headers: { authorization: `Bearer ${second.access}` },
    });
    const { items } = (await keys.json()) as { items: { name: string }[] };
    expect(
      items
        .filter((k) => k.name.startsWith("demo "))
        .map((k) => k.name)
        .sort(),
    ).toEqual(["demo public key", "demo secret key"]);
  }, 180_000);

  it("npm run seed -- --json prints the JSON alone on stdout", async () => {
    const run = await bash("npm run seed -- --json");
    expect(run.code, run.stderr).toBe(0);
    const demo = JSON.parse(run.stdout) as { keys: { secret: string }; session: { refresh_token: string } };
    expect(demo.keys.secret).toMatch(/^ck_/);
    expect(demo.session.refresh_token).toBeTruthy();
  }, 90_000);
});
