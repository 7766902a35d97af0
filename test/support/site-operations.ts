/**
 * Every built operation of the sites spec under `/v1/sites/{id}`: the request it needs beyond its path
 * and the permission of the matrix (src/sites/site/permissions.ts, docs/decisions/sites.md) it requires. The tenant
 * walls (site-access.security.test.ts) and the permission matrix (permissions.security.test.ts) iterate
 * the spec's by-id operations and look each up here, so a new by-id route cannot be left out of either.
 */
import type { SitePermission } from "../../src/sites/site/permissions";
import { storeTheme } from "./theme-helpers";

export interface ByIdOperation {
  permission: SitePermission;
  /** JSON body of a request a permitted caller could make. */
  body?: unknown;
  /** Query string (without `?`). */
  query?: string;
  /** Values of the path's parameters after `{id}`, by name (e.g. an applet's `slug`). */
  params?: Record<string, string>;
  /**
   * Stored state a permitted caller's request refers to, made for one site: the values of the path's
   * further parameters (`{theme_id}`, ...) and the body, when they must name something of that site.
   */
  prepare?: (site: {
    id: string;
    orgId: string;
  }) => Promise<{ params?: Record<string, string>; body?: unknown }>;
}

/**
 * The operation's path (`{id}` first) with `siteId`, every further `{name}` from `params` or the
 * operation's own `params` (left as is when not given), and the operation's query.
 */
export function byIdPath(
  path: string,
  siteId: string,
  operation: ByIdOperation | undefined,
  params: Record<string, string> = {},
): string {
  const values = { ...operation?.params, ...params };
  const filled = path
    .replace(/\{[^}]+\}/, siteId)
    .replace(/\{([^}]+)\}/g, (whole, name: string) => values[name] ?? whole);
  return filled + (operation?.query ? `?${operation.query}` : "");
}

async function orgTheme(site: { orgId: string }): Promise<string> {
  return storeTheme({ scope: "org", org_id: site.orgId });
}

export const BY_ID_OPERATIONS: Record<string, ByIdOperation> = {
  "GET /v1/sites/{id}": { permission: "read" },
  "PATCH /v1/sites/{id}": { permission: "settings", body: { name: "x" } },
  "DELETE /v1/sites/{id}": { permission: "delete" },
  "GET /v1/sites/{id}/legal/catalogo": { permission: "read", query: "setor=ecommerce" },
  "POST /v1/sites/{id}/legal/generate": { permission: "legal", body: { documentos: ["termos-de-uso"] } },
  "GET /v1/sites/{id}/applets": { permission: "read" },
  "PUT /v1/sites/{id}/applets/{slug}": {
    permission: "applets",
    body: { enabled: true },
    params: { slug: "forms" },
  },
  "GET /v1/sites/{id}/themes": { permission: "read" },
  "POST /v1/sites/{id}/themes": { permission: "themes", body: { name: "Look", slug: "look" } },
  "POST /v1/sites/{id}/themes/apply": {
    permission: "themes",
    body: { theme_id: "01J0000000000000000000000Z" },
    prepare: async (site) => ({ body: { theme_id: await orgTheme(site) } }),
  },
  "POST /v1/sites/{id}/themes/undo": { permission: "themes" },
  "DELETE /v1/sites/{id}/themes/{theme_id}": {
    permission: "themes",
    prepare: async (site) => ({ params: { theme_id: await orgTheme(site) } }),
  },
  "GET /v1/sites/{id}/health": { permission: "read" },
  "GET /v1/sites/{id}/domains/check-dns": { permission: "read", query: "host=www.example.com" },
};

/**
 * By-id operations beyond the spec (docs/decisions/sites.md): not in the spec, so the walls and matrix tests
 * cannot find them there; each has its own walls and permission test reading this table.
 */
export const BEYOND_SPEC_BY_ID_OPERATIONS: Record<string, ByIdOperation> = {
  // test/sites/domain-ownership.integration.test.ts
  "POST /v1/sites/{id}/domains/verify": { permission: "settings", body: { host: "www.example.com" } },
};
