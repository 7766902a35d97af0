/**
 * The one permission model of site administration, read by both services that administer a site: sites
 * (its by-id routes, `src/sites/site/permissions.ts`) and content (API keys, forms and webhooks of a site,
 * `src/content/keys/site-staff.ts`). What each organization and site role may do with a site; one test
 * table (test/support/site-permission-table.ts) is checked against both services' behaviour.
 *
 * Owners are recognised by the structural `is_system` attribute of their role, which identity puts on
 * each membership of the edge context as `owner: true` (spec: "never by name"); a membership whose role
 * is merely NAMED `org_owner` or `site_owner` is no owner. `org_admin` is the organization preset that
 * administers; a custom organization role with `sites:manage` manages the organization's sites (not
 * delete, code or integrations); `members:manage` administers members only, nothing on a site.
 *
 * Permissions: `read`; `settings`, `applets`, `themes`, `legal` (the site's look and content settings);
 * `code` (settings that reach the page as markup or script: `code_injection`, `about_html`, `html` blocks
 * of the home builder, `advanced`); `integrations` (API keys, webhooks and forms: credentials and lead
 * data flows that act on the site without a person); `delete`.
 *
 * Content permissions (issue 34, the dashboard routes `/api/v1/sites/{site_id}/posts…` of content):
 * `posts:read` (every post of the site, drafts included), `posts:write_own` (create drafts; edit, delete and
 * mark for review its own drafts), `posts:publish` (publish, schedule, unpublish: its own posts unless it
 * also has `posts:edit_any`), `posts:edit_any` (everyone's posts), `media:read`, `media:upload` (upload and
 * delete media), `taxonomy:manage` (categories and tags), `authors:manage` (author profiles), `leads:read`.
 * The presets mean what WordPress's do: a contributor writes its own drafts and never publishes or
 * uploads; an author also publishes its own posts and uploads; an editor edits and publishes everyone's
 * and manages categories, tags and authors; owners, organization owners and admins hold all of it plus
 * leads. Post bodies are sanitized, so no post permission needs `code`.
 */
import type { EdgeIdentity, OrgMembership, SiteMembership } from "./edge";
import { parseId } from "./ids";
import type { Scope } from "./key-scopes";

/** What content's dashboard routes check (content keeps no shares: no share grants any of these). */
const CONTENT = [
  "posts:read",
  "posts:write_own",
  "posts:publish",
  "posts:edit_any",
  "media:read",
  "media:upload",
  "taxonomy:manage",
  "authors:manage",
  "leads:read",
] as const;

export const SITE_PERMISSIONS = [
  "read",
  "settings",
  "applets",
  "themes",
  "legal",
  "code",
  "integrations",
  "delete",
  ...CONTENT,
] as const;
export type SitePermission = (typeof SITE_PERMISSIONS)[number];

export const CONTENT_PERMISSIONS: readonly SitePermission[] = CONTENT;

const ALL: readonly SitePermission[] = SITE_PERMISSIONS;
const READ: readonly SitePermission[] = ["read"];
/** An organization's plain member: sees the site and its content, changes nothing. */
const MEMBER: readonly SitePermission[] = ["read", "posts:read", "media:read"];
const CONTRIBUTOR: readonly SitePermission[] = ["read", "posts:read", "posts:write_own", "media:read"];
const AUTHOR: readonly SitePermission[] = [...CONTRIBUTOR, "posts:publish", "media:upload"];
/** site_editor, and a custom organization role with `sites:manage`: the site's look and all its content but leads. */
const MANAGE: readonly SitePermission[] = [
  ...AUTHOR,
  "posts:edit_any",
  "taxonomy:manage",
  "authors:manage",
  "settings",
  "applets",
  "themes",
  "legal",
];

/**
 * What a custom SITE role may be given by name (its role's `permissions`, on the edge header): the site's
 * look and content, leads included; never `code`, `integrations` or `delete` (owners' and admins', as for a
 * custom organization role with `sites:manage`).
 */
const NAMEABLE: ReadonlySet<SitePermission> = new Set(
  SITE_PERMISSIONS.filter((p) => p !== "code" && p !== "integrations" && p !== "delete"),
);

/** A custom organization role carrying this permission manages the organization's sites (not delete). */
export const SITES_MANAGE_PERMISSION = "sites:manage";

/** Organization presets that are not owners (owners are `owner: true`, whatever their slug). */
const ORG_PRESETS: Record<string, readonly SitePermission[]> = {
  org_admin: ALL,
  org_member: MEMBER,
};

/**
 * Site presets that are not owners. A custom site role (by slug) reads, plus the permissions its role
 * names (identity puts them on the edge header) that a custom role may be given (`NAMEABLE`).
 */
const SITE_PRESETS: Record<string, readonly SitePermission[]> = {
  site_editor: MANAGE,
  site_author: AUTHOR,
  site_contributor: CONTRIBUTOR,
};

/** A share's site role, as the shared organization's administrators hold it (a share is no owner membership). */
const SHARE_ROLES: Record<string, readonly SitePermission[]> = {
  site_owner: ALL,
  site_editor: MANAGE,
};

/**
 * Credentials and lead flows (`integrations`) are never granted through a share: they act on the site
 * without a person and outlive the share, so only the owning organization and the site's own members
 * administer them (content, which keeps no shares, answers the same). Nor are content's permissions:
 * content keeps no shares, so a share grants none of its routes.
 */
const NEVER_SHARED: ReadonlySet<SitePermission> = new Set(["integrations", ...CONTENT_PERMISSIONS]);

export function orgRolePermissions(m: OrgMembership): readonly SitePermission[] {
  if (m.owner === true) return ALL;
  const preset = ORG_PRESETS[m.role];
  if (preset) return preset;
  return m.permissions.includes(SITES_MANAGE_PERMISSION) ? MANAGE : MEMBER;
}

function siteRolePermissions(m: SiteMembership): readonly SitePermission[] {
  if (m.owner === true) return ALL;
  const preset = SITE_PRESETS[m.role];
  if (preset) return preset;
  const named = (m.permissions ?? []).filter((p): p is SitePermission => NAMEABLE.has(p as SitePermission));
  return [...READ, ...named];
}

/** Whether the organization role administers (owner, admin, or a custom role with sites:manage). */
function administers(m: OrgMembership): boolean {
  return orgRolePermissions(m).includes("settings");
}

/**
 * What a person may do with the site: the union of their grants. The owning organization's role; a
 * stored site membership's role; and for an organization the site is shared with, the share's site role
 * for that organization's administrators (its plain members read), never `integrations`. Empty = no
 * access. A reader session (a site's audience account) gets nothing, whatever it carries. Service
 * callers are the calling service's own rule (sites: everything; content: never administers).
 */
export function personSitePermissions(
  identity: EdgeIdentity,
  site: { id: string; org_id: string },
  shares: { org_id: string; role: string }[] = [],
): Set<SitePermission> {
  const out = new Set<SitePermission>();
  if (identity.sessionKind === "reader") return out;
  const grant = (list: readonly SitePermission[], via = "membership") => {
    for (const p of list) if (via !== "share" || !NEVER_SHARED.has(p)) out.add(p);
  };
  for (const m of identity.orgMemberships ?? []) {
    const org = parseId(m.org_id);
    if (org === site.org_id) grant(orgRolePermissions(m));
    const share = shares.find((s) => s.org_id === org);
    if (share) grant(administers(m) ? (SHARE_ROLES[share.role] ?? READ) : READ, "share");
  }
  for (const m of identity.siteMemberships ?? []) {
    if (parseId(m.site_id) === site.id) grant(siteRolePermissions(m));
  }
  return out;
}

export const ALL_SITE_PERMISSIONS = ALL;

/**
 * The key scopes a person's permissions stand for (content's dashboard routes; the cap of an MCP agent's
 * OAuth grant, identity's consent and content's every use, docs/decisions/oauth-agents.md), so checks written for keys (drafts in search, the
 * listing's statuses, `site:code`) answer a person as a `ck_` key holding them.
 */
const SCOPES_OF: Partial<Record<SitePermission, readonly Scope[]>> = {
  read: ["sites:read", "post_types:read", "seo:read"],
  "posts:read": ["posts:read"],
  "posts:write_own": ["posts:write", "seo:write"],
  "posts:publish": ["posts:write"],
  "posts:edit_any": ["posts:write", "seo:write"],
  "authors:manage": ["posts:write"],
  "media:read": ["media:read"],
  "media:upload": ["media:write"],
  "leads:read": ["leads:read"],
  settings: ["site:read", "site:write"],
  code: ["site:code"],
};

export function scopesOfPermissions(permissions: ReadonlySet<SitePermission>): Set<Scope> {
  return new Set([...permissions].flatMap((p) => SCOPES_OF[p] ?? []));
}
