/**
 * `npm run deploy -- --dry-run` from the generated production configs: the real wrangler CLI bundles each
 * of the four Workers (`wrangler deploy --dry-run --outdir`, offline, no account), so a config that
 * points at a path that does not exist from where it is written (an entry, a migrations folder, the API
 * reference's assets) fails `npm test`, as it would fail the real deploy.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deploy } from "../../scripts/deploy.mjs";
import { DEPLOY_ORDER, EXAMPLE_SETTINGS } from "../../scripts/deploy-config.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "deploy-dry-run-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run deploy -- --dry-run", () => {
  it("bundles each of the four Workers from the production configs, offline", {
    timeout: 120_000,
  }, async () => {
    const settingsFile = path.join(dir, "production.json");
    writeFileSync(
      settingsFile,
      readFileSync(EXAMPLE_SETTINGS, "utf8").replaceAll("example.com", "platform.test"),
    );
    const lines: string[] = [];
    const bundleDir = path.join(dir, "bundles");
    // No account, no network: wrangler's dry run neither logs in nor uploads.
    await deploy({
      dryRun: true,
      settingsFile,
      bundleDir,
      env: {},
      log: (line: string) => lines.push(line),
    });
    for (const name of DEPLOY_ORDER) {
      expect(
        lines.some((l) => l.startsWith(`  ${name}: ok`)),
        `${name} dry run`,
      ).toBe(true);
      const bundle = path.join(bundleDir, name, "index.js");
      expect(existsSync(bundle), `${name} bundle`).toBe(true);
      expect(statSync(bundle).size).toBeGreaterThan(10_000);
    }
    expect(lines.at(-1)).toMatch(/nothing was created or uploaded/);
  });
});
