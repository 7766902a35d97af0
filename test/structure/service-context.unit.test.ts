/**
 * Identity's business functions take `(env, services, …)` like content's and sites', never the Hono
 * context (issue 21): only the HTTP layer (routes, the hosted pages, the middleware that builds the
 * services and the request facts, the request-body readers and the session's cookies) may declare a
 * parameter of type `Context`/`AppContext` or import `hono` itself.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles, srcDir } from "./source-files";

const IDENTITY = path.join(srcDir, "identity");

/** The response/request layer of identity, by path under `src/identity/` (kept narrow on purpose). */
const ALLOWED: ((file: string) => boolean)[] = [
  // Route modules: parse, authenticate, call one function, shape the answer.
  (f) => /(^|\/|-)routes\.ts$/.test(f),
  // The hosted pages render HTML with the context (their business calls use the new signature).
  (f) => f.startsWith("pages/"),
  // The app and its middleware: builds `services` (request facts included) once per request.
  (f) => f === "core/app.ts",
  (f) => f === "core/auth.ts",
  (f) => f === "core/context.ts",
  // Reading a request body by hand (routes whose rules the validator cannot express).
  (f) => f === "core/schemas.ts",
  // The session's and the device's cookies on the response.
  (f) => f === "login/session-response.ts",
];

const CONTEXT_TYPES = new Set(["Context", "AppContext"]);

/** `file:line name` of every parameter typed `Context`/`AppContext` (generic or not) in `text`. */
function contextParameters(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isParameter(node) &&
      node.type &&
      ts.isTypeReferenceNode(node.type) &&
      CONTEXT_TYPES.has(node.type.typeName.getText(source).split(".").pop()!)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line} ${node.name.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function identityFiles() {
  return sourceFiles(IDENTITY).map((file) => ({
    file,
    local: path.relative(IDENTITY, file).split(path.sep).join("/"),
  }));
}

describe("identity's business functions do not take the Hono context", () => {
  it("no module outside the route/response layer declares a Context or AppContext parameter", () => {
    const offenders = identityFiles()
      .filter(({ local }) => !ALLOWED.some((allowed) => allowed(local)))
      .flatMap(({ file }) => contextParameters(relative(file), readSource(file)));
    expect(offenders).toEqual([]);
  });

  it("no module outside that layer imports hono itself (cookies, headers and contexts stay there)", () => {
    // `@hono/zod-openapi` (schemas, `createRoute`) is not `hono`: it stays allowed everywhere.
    const offenders = identityFiles()
      .filter(({ local }) => !ALLOWED.some((allowed) => allowed(local)))
      .filter(({ file }) => /from "hono(\/[^"]*)?"/.test(readSource(file)))
      .map(({ file }) => relative(file));
    expect(offenders).toEqual([]);
  });

  it("the detector sees such parameters (plain, generic, qualified, arrow) and nothing else", () => {
    const sample = [
      "function a(c: AppContext) {}",
      "const b = (c: Context<AppEnv>, n: number) => n;",
      "export async function d(ctx: hono.Context) {}",
      "function e(env: Env, services: Services, c: string) {}",
    ].join("\n");
    expect(contextParameters("x.ts", sample)).toEqual(["x.ts:1 c", "x.ts:2 c", "x.ts:3 ctx"]);
  });

  it("the allowed layer does use the context (the rule guards something real)", () => {
    const routes = identityFiles().filter(({ local }) => local.endsWith("routes.ts"));
    const used = routes.flatMap(({ file }) => contextParameters(relative(file), readSource(file)));
    expect(used.length).toBeGreaterThan(0);
  });
});
