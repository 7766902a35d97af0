/**
 * Helpers for sites tests. The sites worker sits behind the gateway, so tests set the edge headers by
 * hand: a member of an organization, a member of a site, a reader session, or no header at all (a
 * service-to-service caller). `api` signs them as the gateway does (test/support/edge-signing.ts);
 * `apiUnsigned` sends them as a direct caller without the edge secret would.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { newId } from "../../src/lib/ids";
import { callLogger } from "../../src/lib/log";
import type { SitesRpc } from "../../src/lib/rpc";
import type { Services } from "../../src/sites/core/app-env";
import { sitesServices } from "../../src/sites/core/services";
import { handleQueue } from "../../src/sites/index";
import { setOrgSiteLimit } from "../../src/sites/site/store";
import { signEdgeHeaders } from "./edge-signing";

export const sitesEnv = env as unknown as SitesEnv;

/** The services a handler gets from the context, built from `withEnv` (for calling site operations directly). */
export function servicesFor(withEnv: SitesEnv = sitesEnv) {
  return sitesServices(withEnv, callLogger("sites"));
}

/**
 * The real services with some of content's methods replaced (content failing, or observed). Every other
 * method delegates to the real binding (an RPC stub's methods cannot be spread).
 */
export function servicesWithContent(
  overrides: Partial<Services["content"]>,
  withEnv: SitesEnv = sitesEnv,
): Services {
  const real = servicesFor(withEnv);
  const c = real.content;
  return {
    ...real,
    content: {
      ingestImage: (input) => c.ingestImage(input),
      syncSite: (site) => c.syncSite(site),
      definePostType: (input) => c.definePostType(input),
      removePostType: (input) => c.removePostType(input),
      stalledConvergence: () => c.stalledConvergence(),
      healthFacts: (ids) => c.healthFacts(ids),
      siteIntegrations: (ids) => c.siteIntegrations(ids),
      endMemberGrants: (input) => c.endMemberGrants(input),
      upsertLegalPage: (input) => c.upsertLegalPage(input),
      legalPages: (input) => c.legalPages(input),
      startSiteMove: (input) => c.startSiteMove(input),
      siteMove: (input) => c.siteMove(input),
      rollBackSiteMove: (input) => c.rollBackSiteMove(input),
      contentGroups: () => c.contentGroups(),
      ...overrides,
    },
  };
}

/** The sites worker's default entrypoint over its loopback binding (fetch and RPC). */
export const sites = (exports as unknown as { default: Fetcher & SitesRpc }).default;

export type EdgeHeaders = Record<string, string>;

/**
 * What identity marks as the structural owner (`is_system`) on an edge membership: the presets
 * `org_owner` and `site_owner` are the only `is_system` roles, so a test emulating identity marks them.
 */
export function ownerMark(role: string): { owner?: true } {
  return role === "org_owner" || role === "site_owner" ? { owner: true } : {};
}

export function orgMember(orgId: string, role = "org_owner", userId = newId()): EdgeHeaders {
  return {
    "x-user-id": userId,
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify([{ org_id: orgId, role, permissions: [], ...ownerMark(role) }]),
    "x-site-memberships": "[]",
  };
}

export function siteMember(siteId: string, role = "site_editor", userId = newId()): EdgeHeaders {
  return {
    "x-user-id": userId,
    "x-session-kind": "staff",
    "x-org-memberships": "[]",
    "x-site-memberships": JSON.stringify([{ site_id: siteId, role, ...ownerMark(role) }]),
  };
}

/** A staff user holding exactly these memberships. */
export function staff(orgIds: string[], siteIds: string[] = [], userId = newId()): EdgeHeaders {
  return {
    "x-user-id": userId,
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(
      orgIds.map((org_id) => ({ org_id, role: "org_member", permissions: [] })),
    ),
    "x-site-memberships": JSON.stringify(siteIds.map((site_id) => ({ site_id, role: "site_editor" }))),
  };
}

/** A consumer (reader) session; it may even carry memberships, which must not help it. */
export function reader(orgId?: string, siteId?: string): EdgeHeaders {
  return {
    "x-user-id": newId(),
    "x-session-kind": "reader",
    "x-org-memberships": JSON.stringify(orgId ? [{ org_id: orgId, role: "org_owner", permissions: [] }] : []),
    "x-site-memberships": JSON.stringify(siteId ? [{ site_id: siteId, role: "site_owner" }] : []),
  };
}

/** No edge header at all: a service-to-service caller. */
export const service: EdgeHeaders = {};

export interface ApiResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
  contentType: string | null;
}

export interface ApiOptions {
  headers?: EdgeHeaders;
  body?: unknown;
  rawBody?: string;
}

/** A request to the sites worker with its edge headers signed as the gateway signs them. */
export function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResult<T>> {
  return apiCall<T>(method, path, options, true);
}

/** The same request without the gateway's signature: what a direct caller without the edge secret sends. */
export function apiUnsigned<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResult<T>> {
  return apiCall<T>(method, path, options, false);
}

async function apiCall<T>(
  method: string,
  path: string,
  options: ApiOptions,
  signed: boolean,
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers["content-type"] = "application/json";
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const url = `http://sites.internal${path}`;
  const response = await sites.fetch(url, {
    method,
    headers: signed ? signEdgeHeaders(method, url, headers, { body, service: "sites" }) : headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return {
    status: response.status,
    body: parsed as T,
    text,
    contentType: response.headers.get("content-type"),
  };
}

export function uniqueSlug(prefix = "site"): string {
  return `${prefix}-${newId().toLowerCase().slice(-10)}`;
}

/**
 * Marks held custom hosts proved through the development route (DEV_OUTBOX=true in tests), so by-host
 * serves them; docs/decisions/host-proof.md. `as` is a member holding `settings` on the site that holds
 * them (its owner, usually). Tests of the proof itself publish TXT or DNS records instead.
 */
export async function proveHosts(as: EdgeHeaders, ...hosts: string[]): Promise<void> {
  for (const host of hosts) {
    const res = await api("POST", "/api/v1/sites/__dev/prove-host", { headers: as, body: { host } });
    if (res.status !== 200) throw new Error(`proveHosts ${host}: ${res.status} ${res.text}`);
  }
}

export function uniqueDomain(prefix = "www"): string {
  return `${prefix}.${newId().toLowerCase().slice(-12)}.example.com`;
}

export interface SiteBody {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  primary_domain: string | null;
  aliases: string[];
  canonical_host: string;
  default_language: string;
  languages: string[];
  theme: string | null;
  status: string;
  status_reason: string | null;
  status_changed_at: string | null;
  previous_status: string | null;
  settings: Record<string, unknown>;
  settings_unreadable?: boolean;
  created_at: string;
  updated_at: string;
}

/** Creates an organization id and a site in it (as the org's owner); returns both. */
export async function makeSite(
  overrides: Record<string, unknown> = {},
  orgId = newId(),
): Promise<{ orgId: string; site: SiteBody; owner: EdgeHeaders }> {
  const owner = orgMember(orgId);
  const res = await api<SiteBody>("POST", "/api/v1/sites", {
    headers: owner,
    body: { org_id: orgId, name: "Test Site", slug: uniqueSlug(), ...overrides },
  });
  if (res.status !== 201) throw new Error(`makeSite: ${res.status} ${res.text}`);
  return { orgId, site: res.body, owner };
}

export async function storedRow(siteId: string) {
  return sitesEnv.DB.prepare("SELECT * FROM sites WHERE id = ?")
    .bind(siteId)
    .first<Record<string, unknown>>();
}

export async function storedSettings(siteId: string): Promise<string | null> {
  const row = await sitesEnv.DB.prepare("SELECT settings FROM sites WHERE id = ?")
    .bind(siteId)
    .first<{ settings: string }>();
  return row?.settings ?? null;
}

/**
 * Legacy data: a site stored straight in D1 under a UUID id (sites made before ids were ULIDs), of
 * `orgId` (a fresh organization by default); its id.
 */
export async function legacyUuidSite(orgId = newId()): Promise<string> {
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  await sitesEnv.DB.prepare(
    "INSERT INTO sites (id, org_id, name, slug, created_at, updated_at) VALUES (?, ?, 'Legacy', ?, ?, ?)",
  )
    .bind(id, orgId, uniqueSlug("legacy"), at, at)
    .run();
  return id;
}

/** How many page purges the site has queued (`outbound_effects` of kind page_purge, DEV_OUTBOX). */
export async function purgeCount(siteId: string): Promise<number> {
  const row = await sitesEnv.DB.prepare(
    "SELECT COUNT(*) AS n FROM outbound_effects WHERE site_id = ? AND kind = 'page_purge'",
  )
    .bind(siteId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Legacy data: stores a settings document directly (e.g. one that is not a JSON object). */
export async function forceStoredSettings(siteId: string, raw: string) {
  await sitesEnv.DB.prepare("UPDATE sites SET settings = ? WHERE id = ?").bind(raw, siteId).run();
}

export async function setSiteLimit(orgId: string, limit: number) {
  await setOrgSiteLimit(sitesEnv.DB, orgId, limit, new Date().toISOString());
}

/** Delivers one batch of messages to the sites queue consumer, as the Queues runtime would. */
export async function deliverQueue(queue: string, bodies: unknown[]) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await handleQueue(batch, sitesEnv);
  return getQueueResult(batch, ctx);
}
