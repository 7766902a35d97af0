/**
 * `npm test`'s summary names every failed test (scripts/test-reports.mjs), because a CI log may show only the
 * run's last lines: "FAILED (1) lane 2" alone left a failure nobody could find.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { failedTests } from "../../scripts/test-reports.mjs";

const root = "/repo";
const dir = mkdtempSync(path.join(os.tmpdir(), "test-reports-"));
function report(name: string, body: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

describe("the summary's failed tests", () => {
  it("names each failed test with its file and the first line of its error, and no passed one", () => {
    const file = report("lane-2.json", {
      testResults: [
        {
          name: "/repo/test/identity/login.security.test.ts",
          status: "failed",
          assertionResults: [
            { fullName: "login › refuses a wrong password", status: "passed", failureMessages: [] },
            {
              fullName: "login › locks after five",
              status: "failed",
              failureMessages: ["\nAssertionError: expected 200 to be 429\n    at file.ts:1:1"],
            },
          ],
        },
        { name: "/repo/test/identity/ok.test.ts", status: "passed", assertionResults: [] },
      ],
    });
    expect(failedTests(file, root)).toEqual([
      "test/identity/login.security.test.ts › login › locks after five: AssertionError: expected 200 to be 429",
    ]);
  });

  it("names a file that failed outside any test (an import error, a hook) with its message", () => {
    const file = report("lane-3.json", {
      testResults: [
        {
          name: "/repo/test/e2e/a.test.ts",
          status: "failed",
          message: "Error: Hook timed out in 10000ms\n at x",
          assertionResults: [],
        },
      ],
    });
    expect(failedTests(file, root)).toEqual(["test/e2e/a.test.ts: Error: Hook timed out in 10000ms"]);
  });

  it("says so when a part left no readable report", () => {
    expect(failedTests(path.join(dir, "timing.json"), root)).toEqual([
      "timing.json: no readable report (the part ended before writing it)",
    ]);
  });
});
