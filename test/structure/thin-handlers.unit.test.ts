import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = path.resolve(import.meta.dirname, "../../src");
const METHODS = new Set(["openapi", "get", "post", "put", "patch", "delete", "options", "all"]);
const MAX_LINES = 30;

interface Handler {
  where: string;
  lines: number;
}

/** Every function handed to `app.openapi(route, handler)` (or `app.get(path, handler)`) in a service's routes. */
function handlers(): Handler[] {
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
  const found: Handler[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(src, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        METHODS.has(node.expression.name.text) &&
        /app$/i.test(node.expression.expression.getText(source))
      ) {
        for (const arg of node.arguments.slice(1)) {
          if (!ts.isArrowFunction(arg) && !ts.isFunctionExpression(arg)) continue;
          const start = source.getLineAndCharacterOfPosition(arg.getStart(source)).line;
          const end = source.getLineAndCharacterOfPosition(arg.getEnd()).line;
          found.push({ where: `${file}:${start + 1}`, lines: end - start + 1 });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("thin handlers", () => {
  const all = handlers();

  it("finds the handlers of every service", () => {
    for (const service of ["identity", "content", "sites"]) {
      expect(
        all.some((h) => h.where.startsWith(`${service}/`)),
        service,
      ).toBe(true);
    }
  });

  it(`no handler is longer than ${MAX_LINES} lines: it parses, authorizes, calls one function and shapes the answer`, () => {
    const long = all.filter((h) => h.lines > MAX_LINES).map((h) => `${h.where} (${h.lines} lines)`);
    expect(long).toEqual([]);
  });
});
