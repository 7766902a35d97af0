/**
 * Docs that cannot drift (issue 32): every repository path named in a comment of the code (src/, test/,
 * scripts/, bench/, packages/, schema/), of a migration or a wrangler.toml, in a README or in docs/ still
 * names a file or folder of the repository. `test/structure/doc-paths.ts` says what counts as a name and
 * where it may be written from.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dead, LOCAL_ONLY, readRepositoryFile, references, repositoryFiles, SHARED } from "./doc-paths";

describe("paths named in comments, READMEs and docs/", () => {
  const files = repositoryFiles();
  const all = references(files, readRepositoryFile);

  it("every one names a file or folder of the repository (from the root, the naming file's folder or its service's folders)", () => {
    expect(dead(all)).toEqual([]);
  });

  it("catches the issue's examples: a moved store, a moved cache, a file that is gone, a file of another service named alone; strings and URLs are not names", () => {
    const fixture = new Map([
      [
        "src/identity/messaging/otp.ts",
        '// The codes live in store/otp-codes.ts, hashed.\nconst a = "store/otp-codes.ts";\n',
      ],
      [
        "src/content/posts/public-reads.ts",
        "/** The key cache (auth/key-cache.ts), now keys/key-cache.ts. */\n",
      ],
      [
        "docs/decisions/dashboard.md",
        "Ids sort by time (`src/sites/id-order.ts`); see src/*/errors.ts, src/*/nope.ts.\n",
      ],
      ["migrations/content/0001_x.sql", "-- kept by store/sites.ts\nSELECT 'store/sites.ts';\n"],
      [
        "src/content/keys/key-cache.ts",
        "// https://example.com/a/b.ts and example.com/c/d.ts are not ours\n",
      ],
      ["src/sites/errors.ts", "// see ../shared/nowhere/gone.md\n"],
      ["src/identity/errors.ts", ""],
      [
        "src/content/authors/authors.ts",
        "/** Personas (author-personas.ts), now personas.ts; not identity's errors.ts. */\n",
      ],
      ["src/content/authors/personas.ts", ""],
    ]);
    expect(dead(references([...fixture.keys()], (f) => fixture.get(f) ?? ""))).toEqual([
      "src/identity/messaging/otp.ts:1: store/otp-codes.ts",
      "src/content/posts/public-reads.ts:1: auth/key-cache.ts",
      "docs/decisions/dashboard.md:1: src/sites/id-order.ts",
      "docs/decisions/dashboard.md:1: src/*/nope.ts",
      "migrations/content/0001_x.sql:1: store/sites.ts",
      ...(existsSync(SHARED) ? ["src/sites/errors.ts:1: ../shared/nowhere/gone.md"] : []),
      "src/content/authors/authors.ts:1: author-personas.ts",
      "src/content/authors/authors.ts:1: errors.ts",
    ]);
  });

  it("allows a local-only name only for a stated reason, and every allowance is still used", () => {
    const used = new Set(all.map((r) => r.resolution));
    for (const allowance of LOCAL_ONLY) {
      expect(allowance.reason.length, allowance.prefix).toBeGreaterThan(20);
      expect(used.has(allowance.prefix), `${allowance.prefix} is still named`).toBe(true);
    }
  });
});
