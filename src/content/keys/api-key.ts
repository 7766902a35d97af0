/**
 * Authentication of `/v1` requests by API key: `Authorization: Bearer ck_…|pk_…` (or `?key=pk_…` for
 * browsers), the pk_ origin allowlist (or, when the key's owner opted in, a server's read without an
 * Origin: `server_reads`), scopes, and the per-key quotas: writes and lead reads in the key's ApiKeyGate
 * (exact), reads in the Workers rate-limiting bindings (counted where the request lands).
 */
import { bearerRefusal } from "../../lib/bearer";
import type { SiteProjection } from "../../lib/rpc";
import type { Env, WorkerEnv } from "../core/bindings";
import { clockNow } from "../core/clock";
import { siteOfKey } from "../core/groups";
import type { RoutedRequest } from "../core/routing";
import { fail } from "../errors";
import { getSite, INACTIVE_SITE_STATUSES } from "../site/store";
import { type BucketSpec, type BucketState, keyGate, type ReserveResult, type TakeResult } from "./gate";
import { keyContexts } from "./key-cache";
import type { KeyContext, WriteContext } from "./key-context";
import { hashApiKey, type KeyKind } from "./key-hash";
import { originAllowed } from "./origins";
import type { Scope } from "./scopes";
import { findActiveKeyByHash, type KeyLookupRow } from "./store";

export interface KeyRequirement {
  /**
   * "secret" refuses pk_ keys with 403 (operations whose security is only `apiKey`); "public" refuses
   * ck_ keys with 403 (analytics collection, which counts the caller's browser).
   */
  kinds: "secret" | "any" | "public";
  /** Every listed scope is required. */
  scopes: Scope[];
  /**
   * The key's write bucket (its ApiKeyGate), its read buckets (the `READ_LIMITER` and, for pk_ keys,
   * `PUBLIC_READ_LIMITER` bindings; `leads:read` adds the gate's leads bucket), or "collect": only the
   * per-(site, client IP) collection limiter, so a popular site's page views never spend its API read quota.
   */
  quota: "read" | "write" | "collect";
  /**
   * The handler takes the write quota itself with `admitWrite`, in the same call of the key's object as its
   * idempotency reservation (`POST /v1/posts`). It must call it on every path past authentication, a
   * refused body included, so the write quota counts every attempt and 429 still wins over 400.
   */
  quotaInHandler?: true;
}

/**
 * What key authentication reads of the request and adds to its answer. The HTTP layer builds it
 * (`keyRequest` in keys/middleware.ts), so the rules below take plain data, never the Hono context.
 */
export interface KeyRequest {
  readonly authorization: string | undefined;
  /** The `?key=` query parameter. */
  readonly queryKey: string | undefined;
  readonly origin: string | undefined;
  /** The request's fetch metadata headers (`Sec-Fetch-Site`, `-Mode`, `-Dest`), as sent. */
  readonly fetchMetadata: FetchMetadata;
  readonly clientIp: string;
  /** The request names a D1 bookmark: its reads run in that session (core/read-session.ts). */
  readonly hasBookmark: boolean;
  /**
   * Routes the request to the site's group (core/routing.ts: its D1 session opens there): the env its
   * queries run on and the group's primary; null when content does not know the site.
   */
  readonly toSite: (siteId: string) => Promise<RoutedRequest | null>;
  /** Adds headers to the request's final answer, error answers included. */
  readonly addHeaders: (headers: Record<string, string>) => void;
}

/**
 * Quotas, per minute, from the spec's Limits table: token buckets in the ApiKeyGate (writes, leads), and
 * the `simple` settings of the `READ_LIMITER` / `PUBLIC_READ_LIMITER` bindings in wrangler.toml (reads).
 */
export const QUOTAS = {
  write: { name: "write", policy: "writes", capacity: 60, windowSeconds: 60 },
  read: { name: "read", policy: "reads", capacity: 600, windowSeconds: 60 },
  publicReadPerIp: { policy: "public-reads-per-ip", capacity: 60, windowSeconds: 60 },
  /**
   * A `pk_` key's server reads (`server_reads`, no Origin): a bucket of the key's own, in the `READ_LIMITER`
   * binding under `server:<key id>`, apart from its browser reads' buckets (one server asks for every
   * visitor, so a per-client-IP bucket would starve it, and it never spends the browsers' quota).
   */
  serverRead: { policy: "server-reads", capacity: 600, windowSeconds: 60 },
  leads: { name: "leads", policy: "leads", capacity: 10, windowSeconds: 60 },
} as const;

export interface FetchMetadata {
  readonly site: string | undefined;
  readonly mode: string | undefined;
  readonly dest: string | undefined;
}

/**
 * Whether the fetch metadata shows a browser, which is never served as a server read. Every browser that
 * sends fetch metadata sends `Sec-Fetch-Site`, `Sec-Fetch-Mode` and `Sec-Fetch-Dest` together on every
 * request, and only a browser fetches in a mode other than `cors` (`navigate`, `no-cors`, `same-origin`,
 * `websocket`). Node's `fetch` (undici) adds `Sec-Fetch-Mode: cors` alone to every request it sends, so that
 * alone is a server (docs/decisions/key-editing.md).
 */
export function showsBrowser(metadata: FetchMetadata): boolean {
  if (metadata.site !== undefined || metadata.dest !== undefined) return true;
  return metadata.mode !== undefined && metadata.mode.trim().toLowerCase() !== "cors";
}

/** The request headers a `pk_` key's answer depends on when its key serves server reads. */
const SERVER_READ_VARY = "Origin, Sec-Fetch-Site, Sec-Fetch-Mode, Sec-Fetch-Dest";

/** Analytics collection per (site, client IP): the `COLLECT_LIMITER` binding's `simple` setting in wrangler.toml. */
export const COLLECT_QUOTA = { capacity: 60, windowSeconds: 60 } as const;

/** The presented key: the Authorization header wins; `?key=` is only for pk_ keys. */
function presentedKey(request: KeyRequest): string {
  const header = request.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw bearerRefusal("invalid", "Authorization must be 'Bearer <key>'.");
    return match[1]!;
  }
  const query = request.queryKey;
  if (query === undefined || query === "") throw bearerRefusal("missing", "An API key is required.");
  // A secret key in a URL leaks into logs, histories and Referer headers: refuse it outright.
  if (query.startsWith("ck_")) {
    fail(
      "SECRET_KEY_IN_QUERY",
      "Only a public (pk_) key may be sent in the key query parameter; send ck_ keys in Authorization.",
    );
  }
  return query;
}

type QuotaPolicy = Pick<BucketState, "policy" | "capacity" | "windowSeconds">;

function policyHeader(policies: QuotaPolicy[]): string {
  return policies.map((b) => `"${b.policy}";q=${b.capacity};w=${b.windowSeconds}`).join(", ");
}

function stateHeader(buckets: BucketState[]): string {
  return buckets.map((b) => `"${b.policy}";r=${b.remaining};t=${b.resetSeconds}`).join(", ");
}

/** Writes, lead reads and exports: the key read fresh from D1 (the primary), never the isolate's copy. */
function needsFreshKey(requirement: KeyRequirement): boolean {
  return (
    requirement.quota === "write" ||
    requirement.scopes.includes("leads:read") ||
    requirement.scopes.includes("export")
  );
}

/**
 * The key and its site, with the request routed to the site's group. The key's site comes from the
 * directory (`siteOfKey`: its keyed hash, cached in the isolate), or from the isolate's cached context,
 * which knows it; a hash the directory does not know is an unknown key. Writes, lead reads and exports read
 * the key from D1 every time, so a revocation, or a transfer of the site (the key's organization no longer
 * the site's), stops them at once in every isolate; other reads and page-view collection use this isolate's
 * cached context (at most `KEY_CONTEXT_TTL_MS` old: the revocation bound elsewhere than in the revoking
 * isolate).
 */
async function lookUpKey(
  env: WorkerEnv,
  request: KeyRequest,
  keyHash: string,
  requirement: KeyRequirement,
): Promise<{ row: KeyLookupRow; env: Env } | null> {
  const now = clockNow();
  const exact = needsFreshKey(requirement);
  // A read that carries a bookmark reads its key in its session too, so the content version (and with it
  // the edge cache entry) is at least as new as the write the bookmark names, never the isolate's copy.
  const cached = exact || request.hasBookmark ? null : keyContexts.get(keyHash, now);
  const siteId = cached ? cached.site_id : await siteOfKey(env, keyHash);
  if (!siteId) return null;
  const routed = await request.toSite(siteId);
  if (!routed) return null;
  if (cached) return { row: cached, env: routed.env };
  // Exact reads on the primary: a replica may still hold a key revoked a moment ago.
  const row = await findActiveKeyByHash(exact ? routed.primaryDb : routed.env.DB, keyHash);
  // The directory is the key's word on its site: a row in the group that names another site is no key.
  if (!row || row.site_id !== siteId) return null;
  if (!INACTIVE_SITE_STATUSES.has(row.site_status)) keyContexts.set(keyHash, row, now);
  return { row, env: routed.env };
}

/** 403 INSUFFICIENT_SCOPE naming the required and the missing scopes, unless the key has every one. */
export function requireScopes(scopes: ReadonlySet<Scope>, required: readonly Scope[]): void {
  const missing = required.filter((s) => !scopes.has(s));
  if (missing.length > 0) {
    fail("INSUFFICIENT_SCOPE", {
      detail: `This operation requires the scope(s): ${required.join(", ")}.`,
      details: { required_scopes: required, missing_scopes: missing },
    });
  }
}

/** A key of the kind presented, not suspended, of a site that is neither deleted nor archived. */
function isUsable(row: KeyLookupRow, kind: KeyKind): boolean {
  return row.kind === kind && !INACTIVE_SITE_STATUSES.has(row.site_status) && !row.suspended;
}

/** The request's key, checked against the requirement, with its quota taken: the key's context. */
export async function authenticateKey(
  env: WorkerEnv,
  request: KeyRequest,
  requirement: KeyRequirement,
): Promise<KeyContext> {
  const token = presentedKey(request);
  const kind: KeyKind | null = token.startsWith("ck_") ? "secret" : token.startsWith("pk_") ? "public" : null;
  if (!kind || token.length > 200) throw bearerRefusal("invalid", "The API key is invalid.");
  const found = await lookUpKey(env, request, await hashApiKey(env.API_KEY_PEPPER, token), requirement);
  // A suspended key (carried over by a transfer, or stamped for an organization that no longer owns the
  // site) answers exactly like a revoked one.
  if (!found || !isUsable(found.row, kind))
    throw bearerRefusal("invalid", "The API key is invalid or revoked.");
  // `siteEnv`: the request routed to the key's site's group.
  const { row, env: siteEnv } = found;

  let serverRead = false;
  if (kind === "public") {
    const origin = request.origin;
    const allowed = JSON.parse(row.allowed_origins_json) as string[];
    // `Vary`: the answer is chosen by the Origin (no cache may hand it to an allowed one, and it tells the
    // edge this origin was refused here); for a key that serves server reads, by the fetch metadata too,
    // so no cache hands a server read's answer to a browser or a browser's refusal to a server.
    const vary = row.server_reads === 1 ? SERVER_READ_VARY : "Origin";
    // A server's read: no Origin, no browser's fetch metadata, a read, and the owner opted in.
    serverRead =
      origin === undefined &&
      row.server_reads === 1 &&
      !showsBrowser(request.fetchMetadata) &&
      requirement.quota === "read";
    // The key is valid; the place of use is not. A missing Origin is refused too (fail closed) unless it is a
    // server read. No CORS grant: the refused page cannot read the answer.
    if (!serverRead && (origin === undefined || !originAllowed(allowed, origin))) {
      fail("ORIGIN_NOT_ALLOWED", {
        detail:
          origin === undefined && row.server_reads === 1 && showsBrowser(request.fetchMetadata)
            ? "This public key serves reads without an Origin only to servers: a browser's request (Sec-Fetch-* headers) needs an allowed Origin."
            : "This public key may not be used from this origin.",
        headers: { vary },
      });
    }
    request.addHeaders(
      origin === undefined
        ? { vary }
        : {
            "access-control-allow-origin": origin,
            "access-control-expose-headers": "ETag, RateLimit, RateLimit-Policy, Retry-After",
            vary,
          },
    );
    if (requirement.kinds === "secret") {
      fail("SECRET_KEY_REQUIRED", "This operation requires a secret (ck_) key.");
    }
  }

  if (kind === "secret" && requirement.kinds === "public") {
    fail("PUBLIC_KEY_REQUIRED", "This operation takes the site's public (pk_) key.");
  }

  const scopes = new Set(JSON.parse(row.scopes_json) as Scope[]);
  requireScopes(scopes, requirement.scopes);

  if (requirement.quota === "collect") await takeCollectQuota(siteEnv, request, row.site_id);
  else if (serverRead) await takeServerReadQuota(siteEnv, request, row.id);
  else await takeKeyQuota(siteEnv, request, row.id, kind, requirement);

  const context: KeyContext = {
    actor: { kind: "key", keyId: row.id, name: row.name },
    keyId: row.id,
    siteId: row.site_id,
    site: {
      id: row.site_id,
      slug: row.site_slug,
      primary_domain: row.site_primary_domain,
      default_language: row.site_default_language,
    },
    kind,
    scopes,
    createdBy: row.created_by,
    authorName: row.author_name,
    contentVersion: row.site_content_version,
    ...(needsFreshKey(requirement) ? { write: writeContext(row) } : {}),
  };
  return context;
}

/**
 * The write or read quota of a request by `keyId`: an API key, or a person's pseudo key of (person, site) on
 * the dashboard routes (keys/person.ts), which so gets the same buckets, headers and 429s as a key.
 */
export async function takeKeyQuota(
  env: Env,
  request: Pick<KeyRequest, "clientIp" | "addHeaders">,
  keyId: string,
  kind: KeyKind,
  requirement: Pick<KeyRequirement, "quota" | "quotaInHandler" | "scopes">,
): Promise<void> {
  if (requirement.quota === "write") {
    if (!requirement.quotaInHandler) await takeGateQuota(env, request, keyId, [QUOTAS.write]);
  } else await takeReadQuota(env, request, keyId, kind, requirement);
}

/** The site, persona and post types the fresh key lookup read with the key (`findActiveKeyByHash`). */
function writeContext(row: KeyLookupRow): WriteContext {
  const types = JSON.parse(row.post_types_json) as [string, number, number][];
  return {
    site: {
      id: row.site_id,
      org_id: row.site_org_id,
      slug: row.site_slug,
      name: row.site_name,
      default_language: row.site_default_language,
      status: row.site_status,
      primary_domain: row.site_primary_domain,
      updated_at: row.site_updated_at,
    },
    persona:
      row.persona_slug && row.author_name ? { slug: row.persona_slug, display_name: row.author_name } : null,
    postTypes: new Set(types.filter(([, , enabled]) => enabled === 1).map(([slug]) => slug)),
    publicPostTypes: new Set(types.filter(([, isPublic]) => isPublic === 1).map(([slug]) => slug)),
  };
}

/** Buckets of the key's ApiKeyGate (one Durable Object call): exact, all or nothing. */
async function takeGateQuota(
  env: Env,
  request: Pick<KeyRequest, "addHeaders">,
  keyId: string,
  buckets: BucketSpec[],
  policies: QuotaPolicy[] = buckets,
) {
  answerTake(request, await keyGate(env, keyId).take(buckets), policies);
}

/** The RateLimit headers of a take of the key's object, and 429 when it refused. */
function answerTake(request: Pick<KeyRequest, "addHeaders">, result: TakeResult, policies: QuotaPolicy[]) {
  request.addHeaders({
    "ratelimit-policy": policyHeader(policies),
    ratelimit: stateHeader(result.buckets),
  });
  if (!result.allowed) {
    fail("RATE_LIMITED", {
      detail: "Quota exceeded for this key.",
      headers: { "retry-after": String(result.retryAfterSeconds) },
    });
  }
}

/**
 * The write quota of a `quotaInHandler` route, with the request's idempotency reservation when it has one:
 * one call of the key's object. 429 when the quota refused (then nothing was reserved); else the
 * reservation's outcome (null when none was asked for).
 */
export async function admitWrite(
  env: Env,
  request: Pick<KeyRequest, "addHeaders">,
  keyId: string,
  reservation: { idempotencyKey: string; requestHash: string } | null,
): Promise<ReserveResult | null> {
  const admitted = await keyGate(env, keyId).admit([QUOTAS.write], reservation);
  answerTake(request, admitted.taken, [QUOTAS.write]);
  return admitted.reservation;
}

/**
 * Reads: 600 per minute per key (`READ_LIMITER`) and, for pk_ keys, 60 per (key, client IP)
 * (`PUBLIC_READ_LIMITER`), counted by the rate-limiting bindings where the request lands: no Durable
 * Object round trip. The bindings tell only allowed or not, so `RateLimit` carries no remaining count for
 * them (only a refusal, `r=0`); `RateLimit-Policy` still lists every quota that applies. The per-IP limit
 * is taken first, so one client over its share does not spend the key's quota. Lead reads add the gate's
 * exact leads bucket.
 */
async function takeReadQuota(
  env: Env,
  request: Pick<KeyRequest, "clientIp" | "addHeaders">,
  keyId: string,
  kind: KeyKind,
  requirement: Pick<KeyRequirement, "scopes">,
) {
  const perIp = kind === "public";
  const leads = requirement.scopes.includes("leads:read");
  const policies: QuotaPolicy[] = [QUOTAS.read];
  if (perIp) policies.push(QUOTAS.publicReadPerIp);
  if (leads) policies.push(QUOTAS.leads);
  request.addHeaders({ "ratelimit-policy": policyHeader(policies) });
  if (perIp) {
    await limitHere(request, env.PUBLIC_READ_LIMITER, `${keyId}:${request.clientIp}`, QUOTAS.publicReadPerIp);
  }
  await limitHere(request, env.READ_LIMITER, keyId, QUOTAS.read);
  if (leads) await takeGateQuota(env, request, keyId, [QUOTAS.leads], policies);
}

/**
 * A server read of a `pk_` key: its own per-key bucket (`QUOTAS.serverRead`), neither the key's browser
 * read bucket nor a per-client-IP one.
 */
async function takeServerReadQuota(env: Env, request: Pick<KeyRequest, "addHeaders">, keyId: string) {
  request.addHeaders({ "ratelimit-policy": policyHeader([QUOTAS.serverRead]) });
  await limitHere(request, env.READ_LIMITER, `server:${keyId}`, QUOTAS.serverRead);
}

async function limitHere(
  request: Pick<KeyRequest, "addHeaders">,
  limiter: RateLimit,
  key: string,
  quota: QuotaPolicy,
) {
  const { success } = await limiter.limit({ key });
  if (success) return;
  // The binding does not say when its window ends: at most one window from now.
  request.addHeaders({ ratelimit: `"${quota.policy}";r=0;t=${quota.windowSeconds}` });
  fail("RATE_LIMITED", {
    detail: "Quota exceeded for this key.",
    headers: { "retry-after": String(quota.windowSeconds) },
  });
}

/**
 * Page views per (site, client IP): the Workers rate-limiting binding (`COLLECT_LIMITER`, 60 per 60 s,
 * counted where the request lands, no Durable Object hop on the hot path). Stops one client from
 * inflating a site's numbers at will; a site's other keys share the bucket, so a second key buys nothing.
 */
async function takeCollectQuota(env: Env, request: KeyRequest, siteId: string) {
  const { success } = await env.COLLECT_LIMITER.limit({ key: `${siteId}:${request.clientIp}` });
  if (!success) {
    fail("RATE_LIMITED", {
      detail: "Too many page views from this client for this site.",
      headers: { "retry-after": String(COLLECT_QUOTA.windowSeconds) },
    });
  }
}

/** The authenticated key's site; a site this service does not know answers like a revoked key. */
export async function keySite(db: D1Database, key: KeyContext): Promise<SiteProjection> {
  const site = await getSite(db, key.siteId);
  if (!site) throw bearerRefusal("invalid", "The API key is invalid or revoked.");
  return site;
}
