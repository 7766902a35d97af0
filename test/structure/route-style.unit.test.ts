/**
 * One way to write a route (sites' way): each operation is a named `createRoute` constant beside its
 * handler, in the file of its spec section, and a `register…Routes` function lists the routes rather than
 * writing them: no `createRoute(` inline in `.openapi(`, and no registration function over 60 lines.
 */
import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles } from "./source-files";

const MAX_REGISTRATION_LINES = 60;

/** Line numbers of `.openapi(` calls whose first argument is a `createRoute(` written in place. */
function inlineRoutes(text: string): number[] {
  return [...text.matchAll(/\.openapi\(\s*createRoute\(/g)].map(
    (m) => text.slice(0, m.index).split("\n").length,
  );
}

/** `name (lines)` of every `function register…(` longer than the limit (to its closing brace at column 0). */
function longRegistrations(text: string): string[] {
  const lines = text.split("\n");
  const long: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(?:export )?(?:async )?function (register\w*)\(/.exec(line);
    if (!m) return;
    const end = lines.findIndex((l, j) => j > i && l === "}");
    const length = end - i + 1;
    if (length > MAX_REGISTRATION_LINES) long.push(`${m[1]} (${length} lines)`);
  });
  return long;
}

const files = sourceFiles().map((file) => ({ name: relative(file), text: readSource(file) }));

describe("one route style", () => {
  it("no createRoute is written inside .openapi(", () => {
    const offenders = files.flatMap((f) => inlineRoutes(f.text).map((line) => `${f.name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it(`no registration function is over ${MAX_REGISTRATION_LINES} lines`, () => {
    const offenders = files.flatMap((f) => longRegistrations(f.text).map((what) => `${f.name}: ${what}`));
    expect(offenders).toEqual([]);
  });

  it("the rules see what they forbid", () => {
    expect(
      inlineRoutes("x\napp.openapi(\n  createRoute({ method: 'get' }),\n  (c) => c.json({}),\n);"),
    ).toEqual([2]);
    const long = ["export function registerX(app) {", ...Array(60).fill("  a;"), "}"].join("\n");
    expect(longRegistrations(long)).toEqual(["registerX (62 lines)"]);
  });
});
