/**
 * 405 for a known path asked with a method it does not serve (RFC 9110 §15.5.6: with `Allow`), instead
 * of the 404 Hono answers when no route matches the method. Checked before any guard: which methods a
 * documented path serves is public (the OpenAPI documents say it), so it is answered the same to
 * everyone, before a site guard's 404 or an operator guard's 403.
 *
 * The app's own routes (`app.routes`, read on the first request, when every route is in) are put in a
 * Hono router of their own, each under `ALL` with its method as the handler: one match of the path gives
 * every method that serves it, with Hono's own path syntax (`:id`, `:n{[0-9]+}`, `*`).
 * `ALL` entries are middleware (`app.use`, on wildcard and exact paths alike: sites' guard of
 * `/api/v1/sites/:id`), and an `OPTIONS` route is a CORS preflight handler: neither is a method a path
 * serves, so an unknown path under `app.options("/v1/*")` stays 404.
 */
import { TrieRouter } from "hono/router/trie-router";

type Route = { path: string; method: string };

/** The methods each route serves, matchable by path. */
export function methodsRouter(routes: Route[]): TrieRouter<string> {
  const router = new TrieRouter<string>();
  for (const r of routes) {
    const method = r.method.toUpperCase();
    if (method !== "ALL" && method !== "OPTIONS") router.add("ALL", r.path, method);
  }
  return router;
}

/** The methods `path` is served with, in registration order (HEAD beside GET); empty for an unknown path. */
export function allowedMethods(router: TrieRouter<string>, path: string): string[] {
  const methods = new Set<string>();
  for (const [method] of router.match("GET", path)[0]) {
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
  }
  return [...methods];
}

/** `allowedMethods` over a Hono app's routes, the router built on the first request. */
export function allowedMethodsOf(app: { routes: Route[] }): (path: string) => string[] {
  let router: TrieRouter<string> | null = null;
  return (path) => {
    router ??= methodsRouter(app.routes);
    return allowedMethods(router, path);
  };
}
