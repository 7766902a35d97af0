#!/usr/bin/env node
/**
 * Compares two `vitest list --json` outputs by test id (file path relative to the repository + full
 * test name, the project left out so a test moved between projects counts as kept). Prints the ids
 * lost, the ids added, and the lost ones whose name reappears in another file (moved); exits 1 when
 * an id is lost and not found again under the same name elsewhere.
 *
 *   npx vitest list --json=/tmp/before.json   (on the old tree)
 *   npx vitest list --json=/tmp/after.json    (on the new tree)
 *   node scripts/test-list-diff.mjs /tmp/before.json /tmp/after.json
 *
 * Either file may also be captured from stdout (`npx vitest list --json > file`): lines before the JSON
 * array (wrangler's notices) are skipped.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const [beforePath, afterPath] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  console.error("usage: node scripts/test-list-diff.mjs <before.json> <after.json>");
  process.exit(2);
}

/** The path from the repository's `test/` folder on, so lists taken in two checkouts compare. */
function repoRelative(file) {
  const posix = file.split(path.sep).join("/");
  const at = posix.lastIndexOf("/test/");
  return at === -1 ? path.relative(process.cwd(), file) : posix.slice(at + 1);
}

/** @returns {{ file: string, name: string, project: string }[]} */
function load(file) {
  const text = readFileSync(file, "utf8");
  const start = text.search(/^\[/m);
  const end = text.lastIndexOf("]");
  if (start < 0 || end < start) throw new Error(`${file}: no JSON array found`);
  const entries = JSON.parse(text.slice(start, end + 1));
  return entries.map((e) => ({
    file: repoRelative(e.file),
    name: e.name,
    project: e.projectName ?? "",
  }));
}

const id = (t) => `${t.file} > ${t.name}`;
const before = load(beforePath);
const after = load(afterPath);
const beforeIds = new Map(before.map((t) => [id(t), t]));
const afterIds = new Map(after.map((t) => [id(t), t]));
const afterByName = new Map();
for (const t of after) {
  const list = afterByName.get(t.name) ?? [];
  list.push(t);
  afterByName.set(t.name, list);
}

const lost = [...beforeIds.values()].filter((t) => !afterIds.has(id(t)));
const added = [...afterIds.values()].filter((t) => !beforeIds.has(id(t)));
const moved = [];
const gone = [];
for (const t of lost) {
  const elsewhere = (afterByName.get(t.name) ?? []).filter((a) => !beforeIds.has(id(a)));
  if (elsewhere.length > 0) moved.push({ from: t, to: elsewhere });
  else gone.push(t);
}
const movedTargets = new Set(moved.flatMap((m) => m.to.map(id)));
const projectsChanged = [...beforeIds.values()].filter((t) => {
  const a = afterIds.get(id(t));
  return a && a.project !== t.project;
});

console.log(`before: ${before.length} tests in ${new Set(before.map((t) => t.file)).size} files`);
console.log(`after:  ${after.length} tests in ${new Set(after.map((t) => t.file)).size} files`);
console.log(
  `kept ${before.length - lost.length}, moved ${moved.length}, lost ${gone.length}, new ${added.length - movedTargets.size}`,
);
if (projectsChanged.length > 0) {
  const counts = new Map();
  for (const t of projectsChanged) {
    const key = `${t.project} -> ${afterIds.get(id(t)).project}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log("\nsame file and name, other project:");
  for (const [key, n] of counts) console.log(`  ${key}: ${n}`);
}
if (moved.length > 0) {
  console.log("\nmoved (same name, other file):");
  for (const m of moved) console.log(`  ${id(m.from)}\n    -> ${m.to.map((t) => t.file).join(", ")}`);
}
const fresh = added.filter((t) => !movedTargets.has(id(t)));
if (fresh.length > 0) {
  console.log("\nnew:");
  for (const t of fresh) console.log(`  ${id(t)}`);
}
if (gone.length > 0) {
  console.log("\nLOST:");
  for (const t of gone) console.log(`  ${id(t)}`);
  process.exit(1);
}
