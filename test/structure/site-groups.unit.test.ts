/**
 * Site groups (docs/decisions/site-groups.md, issue 38): every content query runs on its site's group, which
 * only the chooser (src/content/core/groups.ts) picks.
 * - The group databases' bindings (`DB_G000`, …), the directory's (`DIRECTORY`) and `CONTENT_GROUPS` are read
 *   in core/groups.ts only; the directory's queries (core/directory-store.ts) are called from there only.
 * - The content worker's entry points (its WorkerEntrypoint and Durable Objects) hold the runtime's env
 *   (`WorkerEnv`, no `DB`), so anything that reads `env.DB` is reached through the chooser or does not
 *   type-check.
 * - No content module names a group database by hand (`env.DB_G…`, `"content-g000"`).
 */
import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles } from "./source-files";

const CHOOSER = "src/content/core/groups.ts";
const DIRECTORY_STORE = "src/content/core/directory-store.ts";
/** Generated from the wrangler config (`npm run types`), and the env types. */
const DECLARATIONS = new Set(["src/content/env.d.ts", "src/content/core/bindings.ts"]);

const content = sourceFiles()
  .map((file) => ({ name: relative(file), text: readSource(file) }))
  .filter((f) => f.name.startsWith("src/content/"));

function lines(text: string, re: RegExp): number[] {
  return text.split("\n").flatMap((line, i) => (re.test(line) ? [i + 1] : []));
}

describe("site groups: one chooser", () => {
  it("the group, directory and CONTENT_GROUPS bindings are read in core/groups.ts only", () => {
    const re = /\b(DB_G\d{3}|DIRECTORY|CONTENT_GROUPS)\b|content-g\d{3}|content-directory/;
    const offenders = content
      .filter((f) => f.name !== CHOOSER && f.name !== DIRECTORY_STORE && !DECLARATIONS.has(f.name))
      .flatMap((f) => lines(f.text, re).map((n) => `${f.name}:${n}`));
    expect(offenders).toEqual([]);
  });

  it("the directory's queries are called from the chooser only", () => {
    const offenders = sourceFiles()
      .map((file) => ({ name: relative(file), text: readSource(file) }))
      .filter((f) => f.name !== CHOOSER && f.name !== DIRECTORY_STORE)
      .filter((f) => /directory-store"/.test(f.text) && f.name.startsWith("src/"))
      .map((f) => f.name);
    expect(offenders).toEqual([]);
  });

  it("the entry points hold the runtime's env (WorkerEnv), never an Env with a DB", () => {
    const re = /\b(WorkerEntrypoint|DurableObject)<\s*Env\s*>/;
    const offenders = content.flatMap((f) => lines(f.text, re).map((n) => `${f.name}:${n}`));
    expect(offenders).toEqual([]);
    const entry = content.find((f) => f.name === "src/content/index.ts");
    expect(entry?.text).toMatch(/WorkerEntrypoint<WorkerEnv>/);
  });
});
