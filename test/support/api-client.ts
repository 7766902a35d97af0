/**
 * The typed clients of the three APIs, as a client reaches them: through the gateway, the one public
 * origin. Types are generated from each service's OpenAPI document (`npm run client` writes
 * types/api/<service>.d.ts; a browser-project test fails when they are stale), requests go through
 * openapi-fetch. Every document names its operations by their full edge path (identity's
 * `/api/v1/auth/...`, content's `/v1/...` and `/api/v1/sites/{site_id}/api-keys...`, sites'
 * `/api/v1/...`) and the gateway forwards paths unchanged, so all three share the gateway as base URL.
 * A service's own probes (`/health`, `/ready`, `/metrics`) are answered on its own address only, so
 * they are left out of the edge clients' paths.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths as ContentPaths } from "../../types/api/content";
import type { paths as IdentityPaths } from "../../types/api/identity";
import type { paths as SitesPaths } from "../../types/api/sites";

/** What the client sends a request through: `exports.default.fetch` in workerd, `fetch` in Node. */
export type Fetcher = (request: Request) => Promise<Response>;

type ServiceProbes = "/health" | "/ready" | "/metrics";
export type EdgePaths<P> = Omit<P, ServiceProbes>;

export type IdentityClient = Client<EdgePaths<IdentityPaths>>;
export type ContentClient = Client<EdgePaths<ContentPaths>>;
export type SitesClient = Client<EdgePaths<SitesPaths>>;

const EDGE = "http://localhost:8787";

export function identityClient(fetch: Fetcher, baseUrl = EDGE): IdentityClient {
  return createClient<EdgePaths<IdentityPaths>>({ baseUrl, fetch });
}

export function contentClient(fetch: Fetcher, baseUrl = EDGE): ContentClient {
  return createClient<EdgePaths<ContentPaths>>({ baseUrl, fetch });
}

export function sitesClient(fetch: Fetcher, baseUrl = EDGE): SitesClient {
  return createClient<EdgePaths<SitesPaths>>({ baseUrl, fetch });
}

/** `Authorization: Bearer …` for one call (an access token or an API key). */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}
