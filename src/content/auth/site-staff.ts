/**
 * Who may administer a site's API keys: site staff as the edge describes them (headers set by the
 * gateway from the verified session). Anyone else, and a missing, deleted or archived site, gets the same
 * opaque 404, so the key-admin routes cannot be used to probe which site ids exist.
 */
import { type EdgeIdentity, readEdgeIdentity } from "../../lib/edge";
import type { ApiError } from "../../lib/problem";
import type { SiteProjection } from "../../lib/rpc";
import { fail, problem } from "../errors";
import { getSite, INACTIVE_SITE_STATUSES } from "../store/sites";

const ORG_ADMIN_ROLES = new Set(["org_owner", "org_admin", "owner", "admin"]);

export function siteNotFound(): ApiError {
  return problem("NOT_FOUND", "No such site.");
}

export function canAdministerKeys(identity: EdgeIdentity, site: SiteProjection): boolean {
  // A reader session (a site's audience account) never administers keys, whatever it claims.
  if (identity.sessionKind === "reader") return false;
  const orgAdmin = (identity.orgMemberships ?? []).some(
    (m) =>
      m.org_id === site.org_id && (ORG_ADMIN_ROLES.has(m.role) || m.permissions.includes("members:manage")),
  );
  const siteOwner = (identity.siteMemberships ?? []).some(
    (m) => m.site_id === site.id && m.role === "site_owner",
  );
  return orgAdmin || siteOwner;
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
