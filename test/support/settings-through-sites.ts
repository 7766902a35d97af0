/**
 * Helpers for content's site settings and SEO routes, which read and write the settings document the
 * sites service owns: real sites made through the sites worker (its service binding, as the gateway
 * would reach it), its PATCH for comparison, and the stored document read and planted straight in
 * sites' database.
 */
import { env } from "cloudflare:workers";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import { contentDbOf } from "./content-groups";
import { createKey } from "./content-helpers";
import { fetchSigned } from "./edge-signing";

const bindings = env as unknown as { SITES: Fetcher; TEST_SITES_DB: D1Database };

export interface SitesAnswer {
  status: number;
  body: Record<string, unknown> & { code?: string; detail?: string; settings?: Record<string, unknown> };
}

function ownerOf(orgId: string): Record<string, string> {
  return {
    "x-user-id": `user-${orgId}`,
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify([{ org_id: orgId, role: "org_owner", permissions: [], owner: true }]),
    "x-site-memberships": "[]",
  };
}

/** A request to the sites worker as the site's organization owner (edge headers set by hand, signed). */
export async function sitesApi(
  method: string,
  path: string,
  orgId: string,
  body?: unknown,
): Promise<SitesAnswer> {
  const res = await fetchSigned(bindings.SITES, `http://sites.internal${path}`, {
    method,
    headers: { ...ownerOf(orgId), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as SitesAnswer["body"]) : {} };
}

/** A real site in the sites service (which pushes its projection to content), and content's view of it. */
export async function registeredSite(settings?: Record<string, unknown>): Promise<SiteProjection> {
  const orgId = newId();
  const res = await sitesApi("POST", "/api/v1/sites", orgId, {
    org_id: orgId,
    name: "Settings site",
    slug: `set-${newId().toLowerCase().slice(-10)}`,
    ...(settings ? { settings } : {}),
  });
  if (res.status !== 201) throw new Error(`registeredSite: ${res.status} ${JSON.stringify(res.body)}`);
  const siteId = String(res.body.id);
  const db = await contentDbOf(siteId).catch(() => {
    throw new Error("registeredSite: sites did not push the site to content (no directory row)");
  });
  const projection = await db
    .prepare(
      "SELECT id, org_id, slug, name, default_language, status, primary_domain, updated_at FROM sites WHERE id = ?",
    )
    .bind(siteId)
    .first<SiteProjection>();
  if (!projection) throw new Error("registeredSite: sites did not push the site to content");
  return projection;
}

/** A registered site with a ck_ key carrying `scopes`. */
export async function settingsTenant(
  scopes: string[] = ["site:read", "site:write", "seo:read", "seo:write"],
  settings?: Record<string, unknown>,
) {
  const site = await registeredSite(settings);
  const key = await createKey(site, { scopes });
  return { site, ck: key.key };
}

/** The settings column as sites stores it (raw text). */
export async function storedSettingsText(siteId: string): Promise<string> {
  const row = await bindings.TEST_SITES_DB.prepare("SELECT settings FROM sites WHERE id = ?")
    .bind(siteId)
    .first<{ settings: string }>();
  if (!row) throw new Error("no such site in sites");
  return row.settings;
}

export async function storedSettings(siteId: string): Promise<Record<string, unknown>> {
  return JSON.parse(await storedSettingsText(siteId)) as Record<string, unknown>;
}

/** Writes the settings column directly (legacy data, keys no route would let through). */
export async function plantSettings(siteId: string, settings: unknown): Promise<void> {
  const raw = typeof settings === "string" ? settings : JSON.stringify(settings);
  await bindings.TEST_SITES_DB.prepare("UPDATE sites SET settings = ? WHERE id = ?").bind(raw, siteId).run();
}

/** Changes the site's status in sites only (content's projection not told): a deletion content lags behind. */
export async function setStatusInSitesOnly(siteId: string, status: string): Promise<void> {
  await bindings.TEST_SITES_DB.prepare("UPDATE sites SET status = ? WHERE id = ?").bind(status, siteId).run();
}
