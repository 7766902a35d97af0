/**
 * Every built operation of the sites spec under `/v1/sites/{id}`: the request it needs beyond its path
 * and the permission of the matrix (src/sites/permissions.ts, docs/decisions.md) it requires. The tenant
 * walls (site-access.security.test.ts) and the permission matrix (permissions.security.test.ts) iterate
 * the spec's by-id operations and look each up here, so a new by-id route cannot be left out of either.
 */
import type { SitePermission } from "../../src/sites/permissions";

export interface ByIdOperation {
  permission: SitePermission;
  /** JSON body of a request a permitted caller could make. */
  body?: unknown;
  /** Query string (without `?`). */
  query?: string;
  /** Values of the path's parameters after `{id}`, by name (e.g. an applet's `slug`). */
  params?: Record<string, string>;
}

/** The operation's path (`{id}` first) with `siteId` and its other parameters filled in. */
export function byIdPath(path: string, siteId: string, operation: ByIdOperation | undefined): string {
  const filled = path
    .replace(/\{[^}]+\}/, siteId)
    .replace(/\{([^}]+)\}/g, (whole, name: string) => operation?.params?.[name] ?? whole);
  return filled + (operation?.query ? `?${operation.query}` : "");
}

export const BY_ID_OPERATIONS: Record<string, ByIdOperation> = {
  "GET /v1/sites/{id}": { permission: "read" },
  "PATCH /v1/sites/{id}": { permission: "settings", body: { name: "x" } },
  "DELETE /v1/sites/{id}": { permission: "delete" },
  "GET /v1/sites/{id}/applets": { permission: "read" },
  "PUT /v1/sites/{id}/applets/{slug}": {
    permission: "applets",
    body: { enabled: true },
    params: { slug: "forms" },
  },
};
