/**
 * Who may administer a site's API keys, webhooks and forms: the `integrations` permission of the one
 * permission model of site administration (src/lib/site-permissions.ts, which sites' by-id routes read
 * too), over the edge's description of the person (headers set by the gateway from the verified
 * session). Anyone else, and a missing, deleted or archived site, gets the same opaque 404, so the
 * key-admin routes cannot be used to probe which site ids exist.
 */
import { type EdgeIdentity, readEdgeIdentity } from "../../lib/edge";
import type { ApiError } from "../../lib/problem";
import type { SiteProjection } from "../../lib/rpc";
import { personSitePermissions } from "../../lib/site-permissions";
import { fail, problem } from "../errors";
import { getSite, INACTIVE_SITE_STATUSES } from "../store/sites";

export function siteNotFound(): ApiError {
  return problem("NOT_FOUND", "No such site.");
}

/**
 * Owners (identity's structural mark), organization admins and site owners; never `members:manage` alone,
 * nor a reader session. Content keeps no shares: the model never grants `integrations` through one.
 */
export function canAdministerKeys(identity: EdgeIdentity, site: SiteProjection): boolean {
  return personSitePermissions(identity, site).has("integrations");
}

/**
 * The caller's user id and the site, or 401 (no session) / 404 (no site, deleted or archived — invisible to
 * customers, as sites says — or not allowed).
 */
export async function authorizeKeyAdmin(
  headers: Headers,
  db: D1Database,
  siteId: string,
): Promise<{ userId: string; site: SiteProjection }> {
  const identity = readEdgeIdentity(headers);
  if (!identity.userId) {
    fail("UNAUTHENTICATED", "A signed-in staff session is required.");
  }
  const site = await getSite(db, siteId);
  if (!site || INACTIVE_SITE_STATUSES.has(site.status) || !canAdministerKeys(identity, site))
    throw siteNotFound();
  return { userId: identity.userId, site };
}
