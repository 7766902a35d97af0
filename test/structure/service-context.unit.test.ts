/**
 * The business functions of all four Workers take `(env, services, …)` and plain request facts, never the
 * Hono context (issue 21 for identity, issue 32 for the others): only the HTTP layer (routes, the hosted
 * pages, the middleware and guards that build the services and the request facts or refuse a caller, the
 * request-body readers and the session's cookies) may declare a parameter of type `Context`/`AppContext`
 * or import `hono` itself. Each service's layer is listed by path, kept narrow on purpose.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { readSource, relative, sourceFiles, srcDir } from "./source-files";

type Allowed = (file: string) => boolean;

/** Route modules: parse, authenticate, call one function, shape the answer. */
const ROUTES: Allowed = (f) => /(^|\/|-)routes\.ts$/.test(f);

/** The response/request layer of identity, by path under `src/identity/`. */
const IDENTITY_LAYER: Allowed[] = [
  ROUTES,
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

/**
 * Content's: the app, the read session and the request's group routing, edge-cache answers, the key's
 * middleware (request facts).
 */
const CONTENT_LAYER: Allowed[] = [
  ROUTES,
  (f) => f === "core/app.ts",
  (f) => f === "core/read-session.ts",
  // Routes each request to its site's group once its site is known (issue 38).
  (f) => f === "core/routing.ts",
  (f) => f === "core/cacheable.ts",
  (f) => f === "keys/middleware.ts",
];

/** Sites': the by-id site guard and the operator gate (each refuses a caller before a handler). */
const SITES_LAYER: Allowed[] = [ROUTES, (f) => f === "site/guard.ts", (f) => f === "operator/gate.ts"];

/** The gateway is the edge itself: its app and its documentation pages. */
const GATEWAY_LAYER: Allowed[] = [ROUTES, (f) => f === "index.ts", (f) => f === "docs.ts"];

const LAYERS: Record<string, Allowed[]> = {
  identity: IDENTITY_LAYER,
  content: CONTENT_LAYER,
  sites: SITES_LAYER,
  gateway: GATEWAY_LAYER,
};

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

/** Every module of every service outside its HTTP layer. */
function businessFiles() {
  return Object.entries(LAYERS).flatMap(([service, layer]) => {
    const dir = path.join(srcDir, service);
    return sourceFiles(dir)
      .map((file) => ({ file, local: path.relative(dir, file).split(path.sep).join("/") }))
      .filter(({ local }) => !layer.some((allowed) => allowed(local)));
  });
}

function identityRoutes() {
  const dir = path.join(srcDir, "identity");
  return sourceFiles(dir).filter((file) => file.endsWith("routes.ts"));
}

describe("no Worker's business functions take the Hono context", () => {
  it("no module outside a service's route/response layer declares a Context or AppContext parameter", () => {
    // Only a module that names one of the types can declare such a parameter: parse those alone.
    const offenders = businessFiles()
      .map(({ file }) => ({ file, text: readSource(file) }))
      .filter(({ text }) => /\b(App)?Context\b/.test(text))
      .flatMap(({ file, text }) => contextParameters(relative(file), text));
    expect(offenders).toEqual([]);
  }, 30_000);

  it("no module outside that layer imports hono itself (cookies, headers and contexts stay there)", () => {
    // `@hono/zod-openapi` (schemas, `createRoute`) is not `hono`: it stays allowed everywhere.
    const offenders = businessFiles()
      .filter(({ file }) => /from "hono(\/[^"]*)?"/.test(readSource(file)))
      .map(({ file }) => relative(file));
    expect(offenders).toEqual([]);
  });

  it("the layer lists name files that exist (a moved file does not widen the layer unseen)", () => {
    for (const [service, layer] of Object.entries(LAYERS)) {
      const dir = path.join(srcDir, service);
      const locals = sourceFiles(dir).map((file) => path.relative(dir, file).split(path.sep).join("/"));
      for (const allowed of layer.slice(1)) expect(locals.some(allowed), `${service}: ${allowed}`).toBe(true);
    }
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
    const used = identityRoutes().flatMap((file) => contextParameters(relative(file), readSource(file)));
    expect(used.length).toBeGreaterThan(0);
  });
});
