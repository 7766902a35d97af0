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
}

export const BY_ID_OPERATIONS: Record<string, ByIdOperation> = {
  "GET /v1/sites/{id}": { permission: "read" },
  "PATCH /v1/sites/{id}": { permission: "settings", body: { name: "x" } },
  "DELETE /v1/sites/{id}": { permission: "delete" },
  "GET /v1/sites/{id}/legal/catalogo": { permission: "read", query: "setor=ecommerce" },
  "POST /v1/sites/{id}/legal/generate": { permission: "legal", body: { documentos: ["termos-de-uso"] } },
};
