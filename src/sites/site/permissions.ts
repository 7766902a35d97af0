/**
 * The permission matrix of the by-id routes (`/v1/sites/{id}/...`): the shared model of site
 * administration (src/lib/site-permissions.ts, read by content too) plus sites' own rule for service
 * callers. Access at all (no role anywhere -> opaque 404) is `canAccessSite`; what a member may do is the
 * model's table (a member without the permission -> 403 FORBIDDEN). docs/decisions/sites.md shows the table.
 */
import type { EdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";
import {
  ALL_SITE_PERMISSIONS,
  orgRolePermissions,
  personSitePermissions,
  type SitePermission,
} from "../../lib/site-permissions";
import { isReader, isServiceCaller } from "./access";

export { SITE_PERMISSIONS, SITES_MANAGE_PERMISSION, type SitePermission } from "../../lib/site-permissions";

/**
 * What the caller may do with the site: the shared model's union of its grants. Empty = no access (the
 * caller gets the opaque 404). A service caller (no edge headers) may do everything; a reader session
 * nothing.
 */
export function sitePermissions(
  identity: EdgeIdentity,
  site: { id: string; org_id: string },
  shares: { org_id: string; role: string }[] = [],
): Set<SitePermission> {
  if (isReader(identity)) return new Set();
  if (isServiceCaller(identity)) return new Set(ALL_SITE_PERMISSIONS);
  return personSitePermissions(identity, site, shares);
}

/** Whether the caller may see the site at all (the by-id guard and the batch's intersection). */
export function canAccessSite(
  identity: EdgeIdentity,
  site: { id: string; org_id: string },
  shares: { org_id: string; role: string }[] = [],
): boolean {
  return sitePermissions(identity, site, shares).has("read");
}

/**
 * POST /v1/sites with markup settings (settings/markup.ts): the creator's role in the organization must
 * grant `code` on the organization's sites (owners and admins); a service caller may.
 */
export function mayWriteCodeIn(identity: EdgeIdentity, orgId: string): boolean {
  if (isReader(identity)) return false;
  if (isServiceCaller(identity)) return true;
  return (identity.orgMemberships ?? []).some(
    (m) => parseId(m.org_id) === orgId && orgRolePermissions(m).includes("code"),
  );
}
