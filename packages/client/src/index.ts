/**
 * `@site-platform/client`: the typed clients of the platform's three APIs, as a client reaches them:
 * through the gateway, the one public origin. Types are generated from each service's OpenAPI document
 * (`npm run client` in the platform's repository writes src/types/<service>.d.ts), requests go through
 * openapi-fetch. Every document names its operations by their full edge path (identity's
 * `/api/v1/auth/...`, content's `/v1/...` and `/api/v1/sites/{site_id}/api-keys...`, sites' `/api/v1/...`)
 * and the gateway forwards paths unchanged, so all three share the gateway as base URL. A service's own
 * probes (`/health`, `/ready`, `/metrics`) are answered on its own address only, so they are left out.
 *
 * ```ts
 * import { contentClient } from "@site-platform/client";
 * const content = contentClient({ baseUrl: "https://api.example.com", auth: { secretKey: "ck_…" } });
 * const { data, error } = await content.GET("/v1/posts", { params: { query: { limit: 10 } } });
 * ```
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths as ContentPaths } from "./types/content.js";
import type { paths as IdentityPaths } from "./types/identity.js";
import type { paths as SitesPaths } from "./types/sites.js";

export type { ContentPaths, IdentityPaths, SitesPaths };

/** What a client sends its requests through: `fetch` by default (a Worker's `exports.default.fetch` in tests). */
export type Fetcher = (request: Request) => Promise<Response>;

type ServiceProbes = "/health" | "/ready" | "/metrics";
/** A service's paths as the gateway serves them (its own probes left out). */
export type EdgePaths<P> = Omit<P, ServiceProbes>;

export type IdentityClient = Client<EdgePaths<IdentityPaths>>;
export type ContentClient = Client<EdgePaths<ContentPaths>>;
export type SitesClient = Client<EdgePaths<SitesPaths>>;

/**
 * How every request of a client authenticates:
 * - `bearer`: a staff access token (`Authorization: Bearer …`), for the dashboard API;
 * - `secretKey`: a `ck_` API key (`Authorization: Bearer ck_…`), server to server;
 * - `publicKey`: a `pk_` API key sent as `?key=pk_…`, for browsers on an allowed origin (a simple
 *   request: no CORS preflight).
 */
export type Auth = { bearer: string } | { secretKey: string } | { publicKey: string };

export interface ClientOptions {
  /** The gateway's address; default `http://127.0.0.1:8787` (`npm start`, `npm run dev`). */
  baseUrl?: string;
  fetch?: Fetcher;
  auth?: Auth;
  /** Headers sent with every request (an `Origin`, from a server acting for a browser). */
  headers?: Record<string, string>;
}

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

/** `Authorization: Bearer …` for one call (an access token or a `ck_` key). */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** The middleware that puts `auth` on every request. */
export function authMiddleware(auth: Auth): Middleware {
  if ("secretKey" in auth && !auth.secretKey.startsWith("ck_"))
    throw new TypeError("secretKey: expected a ck_ key");
  if ("publicKey" in auth && !auth.publicKey.startsWith("pk_"))
    throw new TypeError("publicKey: expected a pk_ key");
  return {
    async onRequest({ request }) {
      if ("publicKey" in auth) {
        const url = new URL(request.url);
        url.searchParams.set("key", auth.publicKey);
        const body =
          request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer();
        return new Request(url, { method: request.method, headers: request.headers, body });
      }
      const token = "bearer" in auth ? auth.bearer : auth.secretKey;
      request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
}

function client<P extends {}>(options: ClientOptions): Client<P> {
  const fetcher = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const made = createClient<P>({
    baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
    fetch: fetcher,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.auth) made.use(authMiddleware(options.auth));
  return made;
}

/** Accounts, sessions, factors, organizations and members: `/api/v1/auth/…`. */
export function identityClient(options: ClientOptions = {}): IdentityClient {
  return client<EdgePaths<IdentityPaths>>(options);
}

/** Posts, media, settings, analytics, leads, import and export (`/v1/…`), and API key administration. */
export function contentClient(options: ClientOptions = {}): ContentClient {
  return client<EdgePaths<ContentPaths>>(options);
}

/** Sites, applets, themes, legal pages, health, domains and the operator console: `/api/v1/…`. */
export function sitesClient(options: ClientOptions = {}): SitesClient {
  return client<EdgePaths<SitesPaths>>(options);
}
