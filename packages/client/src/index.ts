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

type UploadForm = ContentPaths["/v1/media"]["post"]["requestBody"]["content"]["multipart/form-data"];
type MediaUploaded = ContentPaths["/v1/media"]["post"]["responses"][202]["content"]["application/json"];

/**
 * The upload form's fields besides `file`, as the content API's OpenAPI document declares them
 * (`folder_id`, `tag_id`, …); a repeatable field (`tag_id`) may be given as a list.
 */
export type MediaUploadFields = {
  [K in Exclude<keyof UploadForm, "file">]?: UploadForm[K] | NonNullable<UploadForm[K]>[];
};

/**
 * `POST /v1/media`: uploads `file` (a `Blob` or `File`: the browser's file input, `fs.openAsBlob` in Node,
 * a `fetch` answer's `blob()`) as multipart/form-data with the form's other fields, through `client` (a
 * content client with a `ck_` key holding media:write). The type comes from the bytes (PNG, JPEG, GIF,
 * WebP, AVIF, ICO or a safe SVG, at most 8 MiB); the answer is the asset, status `processing`, `202`.
 *
 * ```ts
 * const { data, error } = await uploadMedia(content, new Blob([bytes]), { folder_id });
 * ```
 */
export function uploadMedia(client: ContentClient, file: Blob, fields: MediaUploadFields = {}) {
  // The OpenAPI document types a binary field as a string; the form carries the Blob itself.
  const body = { ...fields, file } as unknown as UploadForm;
  return client.POST("/v1/media", {
    body,
    bodySerializer: (sent) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(sent as Record<string, unknown>)) {
        if (value === undefined || value === null) continue;
        for (const one of Array.isArray(value) ? value : [value]) {
          form.append(name, one instanceof Blob ? one : String(one));
        }
      }
      return form;
    },
  });
}

/** The uploaded asset as `uploadMedia` answers it. */
export type MediaAsset = MediaUploaded;

type SessionAnswer =
  IdentityPaths["/api/v1/auth/refresh"]["post"]["responses"][200]["content"]["application/json"];

/** A staff session's tokens: the access token (15 minutes) and the refresh token that renews it. */
export interface SessionTokens {
  access_token: string;
  refresh_token: string;
}

export interface StaffSessionOptions {
  /** The session as sign-in (or the last refresh) answered it. */
  session: SessionTokens;
  /** The gateway's address; default `http://127.0.0.1:8787`. */
  baseUrl?: string;
  /** What the requests (and the refresh) go through; default `fetch`. */
  fetch?: Fetcher;
  /**
   * Called with every refresh's answer: keep its `refresh_token`, the only valid one from now on (each
   * refresh rotates it, and reusing an old one revokes every session of the account).
   */
  onRefresh?: (session: SessionAnswer) => void | Promise<void>;
}

/** A signed-in staff session whose calls survive the access token's expiry (see `staffSession`). */
export interface StaffSession {
  /** The fetch to give a client (`identityClient({ fetch: session.fetch })`, and content's, sites'). */
  fetch: Fetcher;
  /** The tokens now (changed by each refresh). */
  tokens(): SessionTokens;
  /** Refreshes now; calls made meanwhile wait for this one refresh instead of starting their own. */
  refresh(): Promise<SessionTokens>;
}

/** A 401 whose problem code is `TOKEN_EXPIRED` (the access token's 15 minutes are over). */
async function tokenExpired(response: Response): Promise<boolean> {
  if (response.status !== 401) return false;
  if (!/json/i.test(response.headers.get("content-type") ?? "")) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return problem?.code === "TOKEN_EXPIRED";
}

/**
 * A staff session for the dashboard API: every request carries `Authorization: Bearer <access token>`;
 * a call answered `401 TOKEN_EXPIRED` refreshes the session once (`POST /api/v1/auth/refresh` with the
 * refresh token) and is repeated with the new access token. Calls that meet the expiry together share
 * that one refresh (refresh tokens rotate: two refreshes with the same token would revoke the session).
 * When the refresh itself is refused (`401 REFRESH_FAILED`: sign in again), the call answers that refusal.
 *
 * ```ts
 * const session = staffSession({ session: signedIn, onRefresh: (s) => save(s.refresh_token) });
 * const sites = sitesClient({ fetch: session.fetch });
 * ```
 */
export function staffSession(options: StaffSessionOptions): StaffSession {
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const refreshUrl = new URL("/api/v1/auth/refresh", options.baseUrl ?? DEFAULT_BASE_URL).href;
  let tokens: SessionTokens = {
    access_token: options.session.access_token,
    refresh_token: options.session.refresh_token,
  };
  let inflight: Promise<SessionTokens | Response> | null = null;

  async function renew(): Promise<SessionTokens | Response> {
    const response = await base(
      new Request(refreshUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: tokens.refresh_token }),
      }),
    );
    if (!response.ok) return response;
    const answer = (await response.json()) as SessionAnswer;
    tokens = { access_token: answer.access_token, refresh_token: answer.refresh_token };
    await options.onRefresh?.(answer);
    return tokens;
  }

  /** One refresh at a time: a caller arriving while one runs gets its outcome. */
  function sharedRefresh(): Promise<SessionTokens | Response> {
    inflight ??= renew().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  function authorized(request: Request, accessToken: string): Request {
    const copy = new Request(request);
    copy.headers.set("Authorization", `Bearer ${accessToken}`);
    return copy;
  }

  async function send(request: Request): Promise<Response> {
    const sentWith = tokens.access_token;
    // The body may be needed twice: the first attempt goes out on a copy.
    const response = await base(authorized(request.clone(), sentWith));
    if (!(await tokenExpired(response))) return response;
    // Another call may have refreshed since this one left: then its new token is used as it is.
    const renewed = tokens.access_token !== sentWith ? tokens : await sharedRefresh();
    if (renewed instanceof Response) return renewed.clone();
    return base(authorized(request, renewed.access_token));
  }

  return {
    fetch: send,
    tokens: () => ({ ...tokens }),
    refresh: async () => {
      const renewed = await sharedRefresh();
      if (renewed instanceof Response) {
        throw new Error(`refresh refused: ${renewed.status} ${await renewed.clone().text()}`);
      }
      return renewed;
    },
  };
}
