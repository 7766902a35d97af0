/**
 * Reading vitest's JSON reports (its `json` reporter: `testResults[]` per file, `assertionResults[]` per
 * test), for `npm test`'s summary (scripts/test.mjs) and the flake hunt's (scripts/test-repeat.mjs): every
 * failed test named with the first line of its error, so the last lines of a run, all a CI log's tail may
 * show, say what failed and not only in which part.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const firstLine = (text) =>
  String(text ?? "")
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim() ?? "";

/**
 * The failed tests of one report as lines `file › full name: first line of the error` (file relative to
 * `root`); a file that failed outside any test (an import error, a hook) is one line with its message; a
 * missing or unreadable report is one line saying so (the part died before writing it).
 */
export function failedTests(reportPath, root) {
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch {
    return [`${path.basename(reportPath)}: no readable report (the part ended before writing it)`];
  }
  const lines = [];
  for (const file of report.testResults ?? []) {
    const name = path.relative(root, file.name ?? "");
    const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failed)
      lines.push(`${name} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.status === "failed")
      lines.push(`${name}: ${firstLine(file.message) || "failed"}`);
  }
  return lines;
}
