/**
 * The caller's effective site role on a site (the site list's `role` and its filter), read from the one
 * permission model (src/lib/site-permissions.ts) grant by grant: each membership of the edge context is
 * asked alone what it grants on the site, and the grant with the most permissions names the role.
 * - a site role: its own slug (`site_owner` for the structural owner, whatever its name);
 * - the owning organization or an organization the site is shared with: `site_owner` when the grant
 *   reaches `delete` (organization owners and admins, an administered `site_owner` share), `site_editor`
 *   when it manages the site (a role with `sites:manage`, an administered `site_editor` share), else
 *   `site_viewer` (read only: no site preset is read-only for an organization member, so the list names
 *   it; docs/decisions/dashboard.md).
 * On a tie the site role wins (the explicit grant).
 */
import type { EdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";
import { personSitePermissions, type SitePermission } from "../../lib/site-permissions";

export const VIEWER_ROLE = "site_viewer";

/** The spec's site role aliases (identity.md, Roles), so the filter takes them as identity does. */
const ALIASES: Record<string, string> = {
  owner: "site_owner",
  dono: "site_owner",
  editor: "site_editor",
  author: "site_author",
  autor: "site_author",
  contributor: "site_contributor",
  colaborador: "site_contributor",
};

export function canonicalRole(slug: string): string {
  return ALIASES[slug] ?? slug;
}

function orgGrantRole(granted: Set<SitePermission>): string {
  if (granted.has("delete")) return "site_owner";
  if (granted.has("settings")) return "site_editor";
  return VIEWER_ROLE;
}

type Site = { id: string; org_id: string };
type Share = { org_id: string; role: string };

export function effectiveSiteRole(identity: EdgeIdentity, site: Site, shares: Share[]): string | null {
  let best: { role: string; size: number } | null = null;
  const consider = (role: string, granted: Set<SitePermission>) => {
    if (granted.size > 0 && (best === null || granted.size > best.size)) best = { role, size: granted.size };
  };
  for (const m of identity.siteMemberships ?? []) {
    if (parseId(m.site_id) !== site.id) continue;
    const alone = { ...identity, orgMemberships: [], siteMemberships: [m] };
    consider(m.owner === true ? "site_owner" : canonicalRole(m.role), personSitePermissions(alone, site));
  }
  for (const m of identity.orgMemberships ?? []) {
    const alone = { ...identity, orgMemberships: [m], siteMemberships: [] };
    const granted = personSitePermissions(alone, site, shares);
    consider(orgGrantRole(granted), granted);
  }
  return (best as { role: string } | null)?.role ?? null;
}
