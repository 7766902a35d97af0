/**
 * 405 for a known path asked with a method it does not serve (RFC 9110 §15.5.6: with `Allow`), instead
 * of the 404 Hono answers when no route matches the method: the routes a Hono app registered are read
 * once (`app.routes`, after every route is in) and their paths turned into patterns. Checked before any
 * guard: which methods a documented path serves is public (the OpenAPI documents say it), so it is
 * answered the same to everyone, before a site guard's 404 or an operator guard's 403.
 * `ALL` entries are middleware (`app.use`, on wildcard and exact paths alike: sites' guard of
 * `/api/v1/sites/:id`), not a method a path serves; a route that serves several methods names them
 * (`app.on(["GET", "DELETE"], …)`, as the MCP endpoint does).
 */
export interface Served {
  pattern: RegExp;
  method: string;
}

/** Hono's path syntax (`/v1/posts/:id`, `:id{[0-9]+}`, a trailing or inner `*`) as an anchored pattern. */
export function pathPattern(path: string): RegExp {
  let out = "";
  for (const part of path.split("/").slice(1)) {
    const param = /^:[A-Za-z0-9_]+(?:\{(.+)\})?(\?)?$/.exec(part);
    if (part === "*") out += "(?:/.*)?";
    else if (param) out += param[2] ? `(?:/${param[1] ?? "[^/]+"})?` : `/${param[1] ?? "[^/]+"}`;
    else out += `/${part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}`;
  }
  return new RegExp(`^${out || "/"}/?$`);
}

/** The routes as patterns: built once per app (a request must not compile them again). */
export function servedBy(routes: { path: string; method: string }[]): Served[] {
  return (
    routes
      // A CORS preflight handler (`app.options("/v1/*")`) serves no resource: an unknown path under it stays 404.
      .filter((r) => r.method !== "ALL" && r.method !== "OPTIONS")
      .map((r) => ({ pattern: pathPattern(r.path), method: r.method.toUpperCase() }))
  );
}

/** The methods `path` is served with, in registration order (HEAD beside GET); empty for an unknown path. */
export function allowedMethods(served: Served[], path: string): string[] {
  const methods = new Set<string>();
  for (const s of served) {
    if (!s.pattern.test(path)) continue;
    methods.add(s.method);
    if (s.method === "GET") methods.add("HEAD");
  }
  return [...methods];
}

/** `allowedMethods` over a Hono app's routes, read on the first request (when every route is in). */
export function allowedMethodsOf(app: {
  routes: { path: string; method: string }[];
}): (path: string) => string[] {
  let served: Served[] | null = null;
  return (path) => {
    served ??= servedBy(app.routes);
    return allowedMethods(served, path);
  };
}
