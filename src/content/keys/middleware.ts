/** Route middleware that authenticates the API key before any input validation runs. */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../core/bindings";
import { authenticateKey, type KeyRequirement } from "./api-key";
import { keyContexts } from "./key-cache";

export function requireKey(
  requirement: KeyRequirement | ((c: Context<AppEnv>) => KeyRequirement),
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const required = typeof requirement === "function" ? requirement(c) : requirement;
    const key = await authenticateKey(c, required);
    await next();
    // A write may have moved the site's content version: this isolate's next read of any key of the site
    // reads the key (and so the version) afresh, so it never answers from an older edge-cache entry.
    if (required.quota === "write") keyContexts.forgetSite(key.siteId);
  };
}

/**
 * OpenAPI security requirement naming the scopes (OpenAPI 3.1 allows role names for non-OAuth schemes). A
 * public key is accepted in `Authorization` (`publicReadKey`) or as `?key=` (`publicKeyQuery`).
 */
export function security(kinds: KeyRequirement["kinds"], scopes: string[]): Record<string, string[]>[] {
  const publicKey: Record<string, string[]>[] = [{ publicReadKey: scopes }, { publicKeyQuery: scopes }];
  if (kinds === "public") return publicKey;
  return kinds === "secret" ? [{ apiKey: scopes }] : [{ apiKey: scopes }, ...publicKey];
}

/** A route's documented security and its enforcing middleware from one requirement, so they cannot disagree. */
export function keyAuth(requirement: KeyRequirement) {
  return {
    security: security(requirement.kinds, requirement.scopes),
    middleware: [requireKey(requirement)],
  };
}
