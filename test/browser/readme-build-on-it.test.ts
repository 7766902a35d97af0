/**
 * The README's "Build on it" section, as a new user runs it: every shell block of the section runs in bash
 * against the browser project's platform (the seed's state in a file of this test), and every request in it
 * must succeed (`curl --fail-with-body`, `set -euo pipefail`). What each block prints is checked where it
 * says something a reader relies on: the 428's ways on, the server-side read's total, the widened key.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../../scripts/workers.mjs";
import { platform } from "../support/browser";
import { runProcess } from "../support/browser-processes";

const dir = mkdtempSync(path.join(tmpdir(), "build-on-it-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The shell blocks of the README's "Build on it" section, aimed at this platform. */
function sectionBlocks(gateway: string): string[] {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Build on it\n"));
  if (!section) throw new Error('README: no "## Build on it" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replaceAll("http://127.0.0.1:8787", gateway),
  );
}

/** The JSON objects printed one after another (curl prints a body without a newline after it). */
function jsonValues(text: string): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") {
      if (depth++ === 0) start = i;
    } else if (ch === "}" && --depth === 0) {
      values.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
    }
  }
  return values;
}

function bash(script: string) {
  return runProcess("bash", ["-c", `set -euo pipefail\n${script}`], {
    cwd: root,
    env: {
      ...process.env,
      PLATFORM_URL: platform().urls.gateway,
      SEED_STATE_FILE: path.join(dir, "demo-owner.json"),
    },
    timeoutMs: 90_000,
  });
}

describe('the README\'s "Build on it" section', () => {
  it("has two shell blocks, keys and signing a person in", () => {
    expect(sectionBlocks(platform().urls.gateway)).toHaveLength(2);
  });

  it("keys: mint a public key with a wildcard origin and server reads, widen it, read server-side with a total", async () => {
    const [keys] = sectionBlocks(platform().urls.gateway);
    const run = await bash(keys!);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const outputs = jsonValues(run.stdout);
    const [edited, list, seo] = outputs;
    expect(edited).toMatchObject({
      allowed_origins: ["http://localhost:3000", "https://*.my-blog.pages.dev", "https://blog.example.com"],
      server_reads: true,
    });
    expect((edited!.last_widened as { added: { allowed_origins: string[] } }).added.allowed_origins).toEqual([
      "https://blog.example.com",
    ]);
    expect(typeof list!.total).toBe("number");
    expect(Array.isArray(list!.items)).toBe(true);
    expect(seo).toBeDefined();
  }, 120_000);

  it("a person: sign-up, the 428 with its ways on, TOTP enrolment, then password and an e-mailed code", async () => {
    const [, person] = sectionBlocks(platform().urls.gateway);
    const run = await bash(person!);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const text = run.stdout;
    expect(text).toMatch(/"code": "MFA_NOT_ENROLLED"/);
    expect(text).toMatch(/"magic_link",\s*"totp"/);
    expect(text).toMatch(/"expires_in": \d+/);
  }, 120_000);
});
