/** Role resolution and the membership facts authorization needs (plain functions over D1 rows). */
import { ApiError } from "../lib/problem";

export type RoleScope = "org" | "site";

const ORG_ALIASES: Record<string, string> = { owner: "org_owner", admin: "org_admin", member: "org_member" };
const SITE_ALIASES: Record<string, string> = {
  owner: "site_owner",
  editor: "site_editor",
  author: "site_author",
  contributor: "site_contributor",
  dono: "site_owner",
  autor: "site_author",
  colaborador: "site_contributor",
};

export interface ResolvedRole {
  slug: string;
  isSystem: boolean;
  permissions: string[];
}

/** The slug an alias stands for in a scope (presets and their aliases; custom roles keep their slug). */
export function canonicalRoleSlug(scope: RoleScope, raw: string): string {
  const key = raw.trim().toLowerCase();
  return (scope === "org" ? ORG_ALIASES : SITE_ALIASES)[key] ?? key;
}

/**
 * Resolves a role name for a scope: presets, aliases, and the organization's custom roles by slug. A role
 * of the other scope is 400 BAD_ROLE; an unknown name is 400 ROLE_NOT_FOUND. Owner-ness is the structural
 * `is_system` attribute, never the name.
 */
export async function resolveRole(
  db: D1Database,
  orgId: string,
  scope: RoleScope,
  raw: string,
): Promise<ResolvedRole> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw.trim()))
    throw new ApiError(400, "BAD_ROLE", { detail: "Invalid role name." });
  const slug = canonicalRoleSlug(scope, raw);
  const { results } = await db
    .prepare(
      `SELECT scope, slug, is_system, permissions FROM roles
       WHERE slug = ? AND (org_id IS NULL OR org_id = ?)`,
    )
    .bind(slug, orgId)
    .all<{ scope: RoleScope; slug: string; is_system: number; permissions: string }>();
  const match = results.find((r) => r.scope === scope);
  if (match) {
    return {
      slug: match.slug,
      isSystem: match.is_system === 1,
      permissions: JSON.parse(match.permissions) as string[],
    };
  }
  const otherScopeAlias = (scope === "org" ? SITE_ALIASES : ORG_ALIASES)[raw.trim().toLowerCase()];
  if (results.length > 0 || otherScopeAlias) {
    throw new ApiError(400, "BAD_ROLE", {
      detail: `Role ${raw} is not a${scope === "org" ? "n organization" : " site"} role.`,
    });
  }
  throw new ApiError(400, "ROLE_NOT_FOUND", { detail: `No role ${raw}.` });
}

export interface OrgMember {
  role: string;
  isOwner: boolean;
  permissions: string[];
}

export async function orgMembership(
  db: D1Database,
  orgId: string,
  userId: string,
): Promise<OrgMember | null> {
  const row = await db
    .prepare(
      `SELECT m.role, COALESCE(r.is_system, 0) AS is_system, COALESCE(r.permissions, '[]') AS permissions
       FROM org_memberships m
       LEFT JOIN roles r ON r.scope = 'org' AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)
       WHERE m.org_id = ? AND m.user_id = ?`,
    )
    .bind(orgId, userId)
    .first<{ role: string; is_system: number; permissions: string }>();
  if (!row) return null;
  return {
    role: row.role,
    isOwner: row.is_system === 1,
    permissions: JSON.parse(row.permissions) as string[],
  };
}

/** SQL fragment: the membership row `alias` holds an owner (is_system) organization role. */
export function ownerRoleSql(alias: string): string {
  return `EXISTS (SELECT 1 FROM roles r WHERE r.scope = 'org' AND r.is_system = 1 AND r.slug = ${alias}.role
                  AND (r.org_id IS NULL OR r.org_id = ${alias}.org_id))`;
}

/** SQL fragment: the site membership row `alias` holds an owner (is_system) site role. */
export function siteOwnerRoleSql(alias: string): string {
  return `EXISTS (SELECT 1 FROM roles r WHERE r.scope = 'site' AND r.is_system = 1 AND r.slug = ${alias}.role
                  AND (r.org_id IS NULL OR r.org_id = ${alias}.org_id))`;
}
