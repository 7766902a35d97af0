/**
 * The permission matrix of the by-id routes (`/v1/sites/{id}/...`): what each organization and site role
 * may do with a site. Access at all (no role anywhere -> opaque 404) is `canAccessSite` in access.ts;
 * what a member may do is this table (a member without the permission -> 403 FORBIDDEN). The header
 * carries role slugs only, so owner-ness is the preset slug here (identity's structural `is_system`
 * owner roles are exactly `org_owner` and `site_owner`). docs/decisions.md shows the table.
 */
import type { EdgeIdentity } from "../lib/edge";
import { parseId } from "../lib/ids";
import { isReader, isServiceCaller } from "./access";

export const SITE_PERMISSIONS = ["read", "settings", "applets", "themes", "legal", "delete"] as const;
export type SitePermission = (typeof SITE_PERMISSIONS)[number];

const ALL: readonly SitePermission[] = SITE_PERMISSIONS;
const MANAGE: readonly SitePermission[] = ["read", "settings", "applets", "themes", "legal"];
const READ: readonly SitePermission[] = ["read"];

/** Organization roles over the sites their organization owns. */
const ORG_ROLES: Record<string, readonly SitePermission[]> = {
  org_owner: ALL,
  org_admin: ALL,
  org_member: READ,
};

/** A custom organization role carrying this permission manages the organization's sites (not delete). */
export const SITES_MANAGE_PERMISSION = "sites:manage";

/** Site roles (stored site memberships and the role a site is shared with another organization in). */
const SITE_ROLES: Record<string, readonly SitePermission[]> = {
  site_owner: ALL,
  site_editor: MANAGE,
  site_author: READ,
  site_contributor: READ,
};

function orgRolePermissions(role: string, permissions: string[]): readonly SitePermission[] {
  const preset = ORG_ROLES[role];
  if (preset) return preset;
  return permissions.includes(SITES_MANAGE_PERMISSION) ? MANAGE : READ;
}

function siteRolePermissions(role: string): readonly SitePermission[] {
  // Custom site roles (by slug) read; the header carries no permissions for them.
  return SITE_ROLES[role] ?? READ;
}

/** Whether the organization role administers (owner, admin, or a custom role with sites:manage). */
function administers(role: string, permissions: string[]): boolean {
  return orgRolePermissions(role, permissions).includes("settings");
}

/**
 * What the caller may do with the site: the union of its grants. The owning organization's role; a
 * stored site membership's role; and for an organization the site is shared with, the share's site role
 * for that organization's administrators (its plain members read). Empty = no access (the caller gets
 * the opaque 404). A service caller (no edge headers) may do everything; a reader session nothing.
 */
export function sitePermissions(
  identity: EdgeIdentity,
  site: { id: string; org_id: string },
  shares: { org_id: string; role: string }[] = [],
): Set<SitePermission> {
  const out = new Set<SitePermission>();
  if (isReader(identity)) return out;
  if (isServiceCaller(identity)) return new Set(ALL);
  const grant = (list: readonly SitePermission[]) => {
    for (const p of list) out.add(p);
  };
  for (const m of identity.orgMemberships ?? []) {
    const org = parseId(m.org_id);
    if (org === site.org_id) grant(orgRolePermissions(m.role, m.permissions));
    const share = shares.find((s) => s.org_id === org);
    if (share) grant(administers(m.role, m.permissions) ? siteRolePermissions(share.role) : READ);
  }
  for (const m of identity.siteMemberships ?? []) {
    if (parseId(m.site_id) === site.id) grant(siteRolePermissions(m.role));
  }
  return out;
}

/** Whether the caller may see the site at all (the by-id guard and the batch's intersection). */
export function canAccessSite(
  identity: EdgeIdentity,
  site: { id: string; org_id: string },
  shares: { org_id: string; role: string }[] = [],
): boolean {
  return sitePermissions(identity, site, shares).has("read");
}
