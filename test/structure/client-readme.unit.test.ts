/**
 * The typed client's examples compile as written (issue 33): every ```ts snippet of packages/client/README.md
 * and of the repository README that imports `@site-platform/client` is type-checked, as a consumer's module,
 * against the package's source and generated types (strict, top-level await, Node's `process`). A README
 * showing `limit: "5"` where the API takes an integer, or a path the API does not have, fails here.
 * test/browser/client-package.test.ts does the same for its own program with the packed tarball.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "./source-files";

const READMES = ["packages/client/README.md", "README.md"];
const PACKAGE = "@site-platform/client";

/** The ```ts blocks of a Markdown file that import the package, with the line each starts on. */
function clientSnippets(file: string): { name: string; code: string }[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const out: { name: string; code: string }[] = [];
  for (const match of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const code = match[1]!;
    if (!code.includes(`from "${PACKAGE}"`)) continue;
    const line = text.slice(0, match.index).split("\n").length;
    out.push({ name: `${file}:${line}`, code });
  }
  return out;
}

const dir = mkdtempSync(path.join(tmpdir(), "client-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  typeRoots: [path.join(root, "node_modules/@types")],
  paths: { [PACKAGE]: [path.join(root, "packages/client/src/index.ts")] },
};

const WRONG = {
  name: "wrong",
  code: `import { contentClient } from "${PACKAGE}";
const content = contentClient({ auth: { secretKey: "ck_x" } });
await content.GET("/v1/posts", { params: { query: { limit: "5" } } });
await content.GET("/v1/no-such-path");
`,
};

const snippets = READMES.flatMap(clientSnippets);

/** Each snippet as a consumer's module, all in one program (one type-check): its diagnostics by name. */
const typeErrors = (() => {
  let byName: Map<string, string[]> | null = null;
  return (name: string): string[] => {
    if (!byName) {
      const files = new Map(
        [...snippets, WRONG].map((s) => [path.join(dir, `${s.name.replace(/[^a-z0-9]+/gi, "-")}.ts`), s]),
      );
      for (const [file, s] of files) writeFileSync(file, s.code);
      const found = new Map<string, string[]>([...files.values()].map((s) => [s.name, []]));
      for (const d of ts.getPreEmitDiagnostics(ts.createProgram([...files.keys()], OPTIONS))) {
        const owner = (d.file && files.get(d.file.fileName)?.name) ?? "(elsewhere)";
        const at =
          d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
        const list = found.get(owner) ?? [];
        list.push(`${at}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
        found.set(owner, list);
      }
      byName = found;
    }
    return byName.get(name) ?? [];
  };
})();

describe("the client READMEs' examples", () => {
  it("each README shows the client in use", () => {
    expect(snippets.map((s) => s.name.split(":")[0])).toEqual(expect.arrayContaining(READMES));
  });

  it.each(snippets)("$name compiles as written", { timeout: 60_000 }, ({ name }) => {
    expect(typeErrors(name)).toEqual([]);
  });

  it("nothing else fails to compile (the package's own source, its generated types)", {
    timeout: 60_000,
  }, () => {
    expect(typeErrors("(elsewhere)")).toEqual([]);
  });

  it("the check fails on what the API refuses: a limit as text, a path it does not have", {
    timeout: 60_000,
  }, () => {
    const errors = typeErrors(WRONG.name);
    expect(errors.some((e) => e.startsWith("3:"))).toBe(true);
    expect(errors.some((e) => e.startsWith("4:"))).toBe(true);
  });
});
