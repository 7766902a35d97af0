/** Route middleware that authenticates the API key before any input validation runs. */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../bindings";
import { authenticateKey, type KeyRequirement } from "./api-key";

export function requireKey(
  requirement: KeyRequirement | ((c: Context<AppEnv>) => KeyRequirement),
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await authenticateKey(c, typeof requirement === "function" ? requirement(c) : requirement);
    await next();
  };
}

/** OpenAPI security requirement naming the scopes (OpenAPI 3.1 allows role names for non-OAuth schemes). */
export function security(kinds: KeyRequirement["kinds"], scopes: string[]): Record<string, string[]>[] {
  if (kinds === "public") return [{ publicReadKey: scopes }];
  return kinds === "secret" ? [{ apiKey: scopes }] : [{ apiKey: scopes }, { publicReadKey: scopes }];
}

/** A route's documented security and its enforcing middleware from one requirement, so they cannot disagree. */
export function keyAuth(requirement: KeyRequirement) {
  return {
    security: security(requirement.kinds, requirement.scopes),
    middleware: [requireKey(requirement)],
  };
}
