/**
 * The one table of site administration (src/lib/site-permissions.ts), written out by hand so that a
 * change of the code's table fails: each role, how identity describes a person holding it on the edge
 * (`owner: true` is identity's structural `is_system` mark), and what it may do with the site. Both
 * services are checked against it: sites' by-id routes (test/sites/permissions.security.test.ts) and
 * content's API key, form and webhook administration (test/content/site-admin-permissions.security.test.ts,
 * the `integrations` column) and content's dashboard routes (test/content/dashboard-permissions.security.test.ts,
 * the content columns, issue 34).
 */
import type { SitePermission } from "../../src/lib/site-permissions";

/** Content's permissions (issue 34): no share grants them (content keeps no shares). */
const CONTENT: SitePermission[] = [
  "posts:read",
  "posts:write_own",
  "posts:publish",
  "posts:edit_any",
  "media:read",
  "media:upload",
  "taxonomy:manage",
  "authors:manage",
  "leads:read",
];
export const ALL: SitePermission[] = [
  "read",
  "settings",
  "applets",
  "themes",
  "legal",
  "code",
  "integrations",
  "delete",
  ...CONTENT,
];
export const READ: SitePermission[] = ["read"];
/** An organization's plain member: reads the site and its content. */
export const MEMBER: SitePermission[] = ["read", "posts:read", "media:read"];
/** WordPress's contributor: writes, reads, edits and deletes its own drafts; never publishes or uploads. */
export const CONTRIBUTOR: SitePermission[] = ["read", "posts:read", "posts:write_own", "media:read"];
/** WordPress's author: also publishes and edits its own posts, and uploads media. */
export const AUTHOR: SitePermission[] = [...CONTRIBUTOR, "posts:publish", "media:upload"];
/** site_editor (and sites:manage): everyone's posts, categories, tags, authors, and the site's look; no leads. */
export const MANAGE: SitePermission[] = [
  ...AUTHOR,
  "posts:edit_any",
  "taxonomy:manage",
  "authors:manage",
  "settings",
  "applets",
  "themes",
  "legal",
];
export const NONE: SitePermission[] = [];
/** What an owner or admin of an organization the site is SHARED with as site_owner holds: no integrations, no content. */
const SHARED_OWNER: SitePermission[] = ALL.filter((p) => p !== "integrations" && !CONTENT.includes(p));
/** site_editor as a share grants it: the site's look, not content's routes. */
export const SHARED_MANAGE: SitePermission[] = MANAGE.filter((p) => !CONTENT.includes(p));

/** A list as the API writes it: in the model's order (`ALL` is written in it). */
export const inModelOrder = (list: SitePermission[]): SitePermission[] => ALL.filter((p) => list.includes(p));

export interface EdgeOrgMembership {
  org_id: string;
  role: string;
  permissions: string[];
  owner?: true;
}
export interface EdgeSiteMembership {
  site_id: string;
  role: string;
  /** A custom site role's permissions by name, as identity puts them on the edge header. */
  permissions?: string[];
  owner?: true;
}

export interface PermissionRow {
  name: string;
  may: SitePermission[];
  /** The memberships of a person holding this role on `site`; `partner` is a fresh organization's id. */
  orgs: (site: { id: string; orgId: string }, partner: string) => EdgeOrgMembership[];
  sites: (site: { id: string; orgId: string }) => EdgeSiteMembership[];
  /** The site is shared with `partner` in this site role (sites only: content keeps no shares). */
  share?: string;
}

const org = (org_id: string, role: string, extra: Partial<EdgeOrgMembership> = {}): EdgeOrgMembership => ({
  org_id,
  role,
  permissions: [],
  ...extra,
});

export const PERMISSION_TABLE: PermissionRow[] = [
  {
    name: "org_owner (is_system)",
    may: ALL,
    orgs: (s) => [org(s.orgId, "org_owner", { owner: true, permissions: ["members:manage"] })],
    sites: () => [],
  },
  {
    name: "org_admin",
    may: ALL,
    orgs: (s) => [org(s.orgId, "org_admin", { permissions: ["members:manage"] })],
    sites: () => [],
  },
  { name: "org_member", may: MEMBER, orgs: (s) => [org(s.orgId, "org_member")], sites: () => [] },
  {
    name: "custom org role with members:manage",
    may: MEMBER,
    orgs: (s) => [org(s.orgId, "reviewers", { permissions: ["members:manage"] })],
    sites: () => [],
  },
  {
    name: "custom org role with sites:manage",
    may: MANAGE,
    orgs: (s) => [org(s.orgId, "webmasters", { permissions: ["sites:manage"] })],
    sites: () => [],
  },
  {
    name: "a role NAMED org_owner without the structural owner mark",
    may: MEMBER,
    orgs: (s) => [org(s.orgId, "org_owner")],
    sites: () => [],
  },
  {
    name: "site_owner (is_system)",
    may: ALL,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_owner", owner: true }],
  },
  {
    name: "a role NAMED site_owner without the structural owner mark",
    may: READ,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_owner" }],
  },
  {
    name: "site_editor",
    may: MANAGE,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_editor" }],
  },
  {
    name: "site_author",
    may: AUTHOR,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_author" }],
  },
  {
    name: "site_contributor",
    may: CONTRIBUTOR,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_contributor" }],
  },
  {
    name: "custom site role",
    may: READ,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "proofreader" }],
  },
  {
    name: "custom site role naming content permissions",
    may: ["read", "posts:read", "posts:write_own", "media:upload", "leads:read"],
    orgs: () => [],
    sites: (s) => [
      {
        site_id: s.id,
        role: "lead-reader",
        permissions: ["posts:read", "posts:write_own", "media:upload", "leads:read", "no:such-permission"],
      },
    ],
  },
  {
    name: "custom site role naming code, integrations and delete (owners' only: not given by name)",
    may: ["read", "settings"],
    orgs: () => [],
    sites: (s) => [
      { site_id: s.id, role: "webmaster", permissions: ["settings", "code", "integrations", "delete"] },
    ],
  },
  {
    name: "a preset site role's slug with permissions on the header (the preset's own, nothing more)",
    may: CONTRIBUTOR,
    orgs: () => [],
    sites: (s) => [{ site_id: s.id, role: "site_contributor", permissions: ["posts:edit_any"] }],
  },
  {
    name: "org_member of the owning org plus site_editor of the site",
    may: MANAGE,
    orgs: (s) => [org(s.orgId, "org_member")],
    sites: (s) => [{ site_id: s.id, role: "site_editor" }],
  },
  {
    name: "org_owner of another organization",
    may: NONE,
    orgs: (_s, partner) => [org(partner, "org_owner", { owner: true })],
    sites: () => [],
  },
  {
    name: "org_admin of an organization the site is shared with as site_editor",
    may: SHARED_MANAGE,
    share: "site_editor",
    orgs: (_s, partner) => [org(partner, "org_admin", { permissions: ["members:manage"] })],
    sites: () => [],
  },
  {
    name: "org_owner of an organization the site is shared with as site_owner",
    may: SHARED_OWNER,
    share: "site_owner",
    orgs: (_s, partner) => [org(partner, "org_owner", { owner: true })],
    sites: () => [],
  },
  {
    name: "org_member of an organization the site is shared with as site_owner",
    may: READ,
    share: "site_owner",
    orgs: (_s, partner) => [org(partner, "org_member")],
    sites: () => [],
  },
];
