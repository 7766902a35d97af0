/**
 * The dry run refuses what the real deploy refuses (issue 35: it passed with the example's values
 * untouched, then the real run refused 14 of them). Both call one check (`refuseUnready`): on the example
 * settings both fail with the same list, before any wrangler call; a single bad value refuses both too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deploy } from "../../scripts/deploy.mjs";
import { EXAMPLE_SETTINGS, readSettings, settingsProblems } from "../../scripts/deploy-config.mjs";
import { FakeAccount } from "./fake-account";

const dir = mkdtempSync(path.join(tmpdir(), "deploy-refusals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error of a run (dry or real) on `settingsFile`, and every wrangler call it made. */
async function refusal(settingsFile: string, dryRun: boolean) {
  const account = new FakeAccount();
  const lines: string[] = [];
  const error = await deploy({
    dryRun,
    settingsFile,
    wrangler: account.wrangler,
    env: {},
    log: (line: string) => lines.push(line),
    outDir: path.join(dir, "out"),
    bundleDir: path.join(dir, "bundles"),
  }).then(
    () => null,
    (e: Error) => e,
  );
  return { error, calls: account.calls, lines };
}

describe("deploy --dry-run runs the real deploy's checks", () => {
  it("on the example settings untouched: the same refusals as the real run, every example value named", async () => {
    const dry = await refusal(EXAMPLE_SETTINGS, true);
    const real = await refusal(EXAMPLE_SETTINGS, false);
    expect(dry.error?.message).toMatch(/is not ready for production/);
    expect(dry.error?.message).toBe(real.error?.message);
    expect(dry.calls).toEqual([]);
    expect(real.calls).toEqual([]);

    const problems = settingsProblems(readSettings(EXAMPLE_SETTINGS));
    // The 14 example vars, and the gateway's example route.
    expect(problems).toHaveLength(15);
    expect(dry.error?.message).toContain(`(${problems.length} problems)`);
    for (const problem of problems) expect(dry.error?.message).toContain(problem);
    for (const v of [
      "TOKEN_ISSUER",
      "CORS_ORIGINS",
      "MAIL_PROVIDER_URL",
      "SMS_PROVIDER_URL",
      "PAGE_PURGE_URL",
    ])
      expect(dry.error?.message).toMatch(new RegExp(`: ${v} = \\S+ is the example's value`));
    expect(dry.error?.message).toContain("gateway: routes[0] = api.example.com is the example's value");
    // The dry run still shows the plan it refuses.
    expect(dry.lines.some((l) => l.startsWith("Plan:"))).toBe(true);
  });

  it("one local address, one missing var or one development flag refuses both alike", async () => {
    const ready = readFileSync(EXAMPLE_SETTINGS, "utf8").replaceAll("example.com", "platform.test");
    const variants: Record<
      string,
      (s: { workers: Record<string, { vars: Record<string, string> }> }) => void
    > = {
      local: (s) => {
        s.workers.identity!.vars.ISSUER = "http://localhost:8787";
      },
      missing: (s) => {
        delete s.workers.content!.vars.CACHE_PURGE_URL;
      },
      development: (s) => {
        s.workers.identity!.vars.DEV_OUTBOX = "true";
      },
    };
    for (const [name, change] of Object.entries(variants)) {
      const settings = JSON.parse(ready);
      change(settings);
      const file = path.join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(settings));
      const dry = await refusal(file, true);
      const real = await refusal(file, false);
      expect(dry.error?.message, name).toMatch(/\(1 problem\)/);
      expect(dry.error?.message, name).toBe(real.error?.message);
      expect(dry.calls, name).toEqual([]);
    }
  });
});
