/**
 * Test helpers of the content service: a site projection pushed over RPC (as the sites service does),
 * staff edge headers (as the gateway sets them), API keys made through the key-admin API, and requests
 * through the worker's own fetch.
 */
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { EDGE_HEADER_NAMES } from "../../src/lib/edge";
import { newId } from "../../src/lib/ids";
import type { ContentRpc, SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "./content-groups";
import { signEdgeHeaders } from "./edge-signing";

export interface ContentTestRpc extends ContentRpc {
  fetch(request: Request): Promise<Response>;
  /** The cron handler, invoked over the entrypoint like the scheduler does. */
  scheduled(options: { cron: string }): Promise<unknown>;
}

export const content = (exports as unknown as { default: ContentTestRpc }).default;
/** Content's bindings the tests use directly; its rows live in the site's group (test/support/content-groups.ts). */
export const testEnv = env as unknown as {
  CACHE: KVNamespace;
  MEDIA: R2Bucket;
  KEY_GATE: DurableObjectNamespace;
  MEDIA_PUBLIC_BASE: string;
  CONTENT_EVENTS: Queue;
};

export const BASE = "http://content.test";

export async function makeSite(overrides: Partial<SiteProjection> = {}): Promise<SiteProjection> {
  const id = newId();
  const site: SiteProjection = {
    id,
    org_id: newId(),
    slug: `site-${id.slice(-8).toLowerCase()}`,
    name: "Test site",
    default_language: "en",
    status: "active",
    primary_domain: `${id.slice(-8).toLowerCase()}.example.test`,
    updated_at: new Date().toISOString(),
    ...overrides,
  };
  await content.syncSite(site);
  return site;
}

export function staffHeaders(
  userId: string,
  memberships: {
    org?: { org_id: string; role: string; permissions?: string[]; owner?: boolean }[];
    site?: { site_id: string; role: string; owner?: boolean }[];
  },
): Record<string, string> {
  return {
    "x-user-id": userId,
    "x-session-kind": "staff",
    // Identity marks the structural owner roles (`is_system`: the presets org_owner, site_owner).
    "x-org-memberships": JSON.stringify(
      (memberships.org ?? []).map((m) => ({
        permissions: [],
        ...(m.role === "org_owner" ? { owner: true } : {}),
        ...m,
      })),
    ),
    "x-site-memberships": JSON.stringify(
      (memberships.site ?? []).map((m) => ({ ...(m.role === "site_owner" ? { owner: true } : {}), ...m })),
    ),
  };
}

export function ownerHeaders(site: SiteProjection, userId = `user-${site.id}`): Record<string, string> {
  return staffHeaders(userId, { org: [{ org_id: site.org_id, role: "org_owner" }] });
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  origin?: string;
  ip?: string;
}

export function call(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  return content.fetch(contentRequest(method, path, options));
}

/** The request `call` sends; its edge headers signed as the gateway signs them (test/support/edge-signing.ts). */
export function contentRequest(method: string, path: string, options: RequestOptions = {}): Request {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.origin) headers.origin = options.origin;
  if (options.ip) headers["cf-connecting-ip"] = options.ip;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const url = `${BASE}${path}`;
  // Content has no service caller: a request without edge headers (by key, public) needs no signature.
  const staff = Object.keys(headers).some((name) => EDGE_HEADER_NAMES.includes(name.toLowerCase()));
  return new Request(url, {
    method,
    headers: staff ? signEdgeHeaders(method, url, headers, { body, service: "content" }) : headers,
    body,
  });
}

/**
 * Reads are counted by the rate-limiting bindings, per fixed window of 60 s (Miniflare aligns windows to
 * the clock): a burst that straddles a window boundary is run again, with the fresh key `run` makes.
 */
export async function inOneWindow<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const window = Math.floor(Date.now() / 60_000);
    const result = await run();
    if (Math.floor(Date.now() / 60_000) === window || attempt === 3) return result;
  }
}

export interface CreatedKey {
  id: string;
  key: string;
  kind: "secret" | "public";
  scopes: string[];
  allowed_origins: string[];
  created_at: string;
}

export const ORIGIN = "https://reader.example.test";

export async function createKey(
  site: SiteProjection,
  options: { kind?: "secret" | "public"; scopes?: string[]; allowed_origins?: string[]; name?: string } = {},
): Promise<CreatedKey> {
  const kind = options.kind ?? "secret";
  const res = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
    headers: ownerHeaders(site),
    body: {
      name: options.name ?? "test key",
      kind,
      scopes:
        options.scopes ??
        (kind === "secret" ? ["posts:write", "posts:read", "seo:read", "seo:write"] : ["posts:read"]),
      ...(kind === "public" ? { allowed_origins: options.allowed_origins ?? [ORIGIN] } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`createKey: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedKey;
}

/** A site with a secret (write + read) key and a public read key. */
export async function tenant(overrides: Partial<SiteProjection> = {}) {
  const site = await makeSite(overrides);
  const secret = await createKey(site, {
    scopes: ["posts:write", "posts:read", "seo:read", "seo:write", "post_types:read", "sites:read"],
  });
  const pub = await createKey(site, {
    kind: "public",
    scopes: ["posts:read", "seo:read", "post_types:read"],
  });
  return { site, ck: secret.key, pk: pub.key, secretKey: secret, publicKey: pub };
}

export interface PostOut {
  id: string;
  slug: string;
  status: string;
  language: string;
  published_at: string | null;
  [k: string]: unknown;
}

export async function createPost(
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await call("POST", "/v1/posts", { key, body, headers });
  if (res.status !== 201) throw new Error(`createPost: ${res.status} ${await res.text()}`);
  return (await res.json()) as PostOut;
}

/** Rows a site has in a content table: "nothing was written" checks. */
export async function countRows(table: "posts" | "post_effects" | "media", siteId: string): Promise<number> {
  const db = await contentDbOf(siteId);
  const row = await db
    .prepare(`SELECT count(*) AS n FROM ${table} WHERE site_id = ?`)
    .bind(siteId)
    .first<{ n: number }>();
  return row!.n;
}

/**
 * What the dev outbox recorded for the site (`outbound_effects`, DEV_OUTBOX): the payloads of one kind
 * (`cache_purge`, `event:post.updated`, …), oldest first.
 */
export async function recordedEffects<T = Record<string, unknown>>(
  siteId: string,
  kind: string,
): Promise<T[]> {
  const db = await contentDbOf(siteId);
  const { results } = await db
    .prepare("SELECT payload_json FROM outbound_effects WHERE site_id = ? AND kind = ? ORDER BY created_at")
    .bind(siteId, kind)
    .all<{ payload_json: string }>();
  return results.map((r) => JSON.parse(r.payload_json) as T);
}

/** A ready PNG asset of the site, written straight to D1 (no upload, no variants). */
export async function seedMedia(siteId: string): Promise<string> {
  const id = newId();
  const db = await contentDbOf(siteId);
  await db
    .prepare(
      `INSERT INTO media (id, site_id, r2_key, content_type, size_bytes, status, created_at)
     VALUES (?, ?, ?, 'image/png', 10, 'ready', ?)`,
    )
    .bind(id, siteId, `sites/${siteId}/${id}.png`, new Date().toISOString())
    .run();
  return id;
}

export function paragraph(text: string) {
  return { blocks: [{ id: "p1", type: "paragraph", data: { text } }] };
}

export async function problem(res: Response): Promise<{ status: number; code: string; detail?: string }> {
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  return (await res.json()) as { status: number; code: string; detail?: string };
}

/** The `site-transferred` queue message identity sends when a transfer (or share) of `site` to `to` is accepted. */
export function siteTransferredMessage(
  site: SiteProjection,
  to: string,
  mode: "transfer" | "share" = "transfer",
) {
  return {
    type: "site.transferred",
    transfer_id: newId(),
    site_id: site.id,
    from_org_id: site.org_id,
    to_org_id: to,
    mode,
    share_role: null,
    at: new Date().toISOString(),
  };
}
