/** The 405 rule's path matching (src/lib/allowed-methods.ts). */
import { describe, expect, it } from "vitest";
import { allowedMethods as allowedOf, methodsRouter } from "../../src/lib/allowed-methods";

const allowedMethods = (routes: { path: string; method: string }[], path: string) =>
  allowedOf(methodsRouter(routes), path);

const routes = [
  { path: "*", method: "ALL" },
  { path: "/v1/posts", method: "GET" },
  { path: "/v1/posts", method: "POST" },
  { path: "/v1/posts/:id", method: "GET" },
  { path: "/v1/posts/:id", method: "PATCH" },
  { path: "/v1/posts/:id", method: "DELETE" },
  { path: "/media/*", method: "GET" },
  { path: "/v1/items/:n{[0-9]+}", method: "PUT" },
];

describe("allowedMethods", () => {
  it("lists the methods a known path serves, HEAD beside GET, never the middleware's ALL", () => {
    expect(allowedMethods(routes, "/v1/posts")).toEqual(["GET", "HEAD", "POST"]);
    expect(allowedMethods(routes, "/v1/posts/01ABC")).toEqual(["GET", "HEAD", "PATCH", "DELETE"]);
    expect(allowedMethods(routes, "/media/a/b.webp")).toEqual(["GET", "HEAD"]);
  });

  it("is empty for a path nothing serves, and honours a parameter's own pattern", () => {
    expect(allowedMethods(routes, "/v1/nothing")).toEqual([]);
    expect(allowedMethods(routes, "/v1/posts/a/b")).toEqual([]);
    expect(allowedMethods(routes, "/v1/items/12")).toEqual(["PUT"]);
    expect(allowedMethods(routes, "/v1/items/x")).toEqual([]);
  });

  it("never counts middleware (ALL, on a wildcard or an exact path) as a method the path serves", () => {
    const guarded = [...routes, { path: "/v1/posts", method: "ALL" }, { path: "/v1/*", method: "ALL" }];
    expect(allowedMethods(guarded, "/v1/posts")).toEqual(["GET", "HEAD", "POST"]);
    expect(allowedMethods([{ path: "/v1/guarded", method: "ALL" }], "/v1/guarded")).toEqual([]);
    // Nor a CORS preflight handler: a path nothing else serves stays unknown (404), not 405.
    expect(
      allowedMethods([...routes, { path: "/v1/*", method: "OPTIONS" }], "/v1/a/path/added/later"),
    ).toEqual([]);
  });

  it("matches a literal path literally", () => {
    const wellKnown = [{ path: "/.well-known/jwks.json", method: "GET" }];
    expect(allowedMethods(wellKnown, "/.well-known/jwksxjson")).toEqual([]);
    expect(allowedMethods(wellKnown, "/.well-known/jwks.json")).toEqual(["GET", "HEAD"]);
  });
});
