/** Role resolution: presets, their aliases in both scopes, and custom roles. */

import { fail } from "../errors";
import { roleSlugsOfScope, rolesBySlug } from "./roles-store";

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
 * A refused role name (400 BAD_ROLE or ROLE_NOT_FOUND) with the roles that would have been accepted:
 * `details.valid_roles` holds the slugs of the scope's presets and the organization's custom roles of that
 * scope, sorted, and the detail names them (the aliases of the presets are accepted too).
 */
async function refuseRole(
  db: D1Database,
  orgId: string,
  scope: RoleScope,
  code: "BAD_ROLE" | "ROLE_NOT_FOUND",
  why: string,
): Promise<never> {
  const validRoles = [...new Set(await roleSlugsOfScope(db, orgId, scope))].sort();
  const kind = scope === "org" ? "organization" : "site";
  fail(code, {
    detail: `${why} Valid ${kind} roles: ${validRoles.join(", ")}.`,
    details: { valid_roles: validRoles },
  });
}

/**
 * Resolves a role name for a scope: presets, aliases, and the organization's custom roles by slug. A role
 * of the other scope is 400 BAD_ROLE; an unknown name is 400 ROLE_NOT_FOUND; both list the valid roles.
 * Owner-ness is the structural `is_system` attribute, never the name.
 */
export async function resolveRole(
  db: D1Database,
  orgId: string,
  scope: RoleScope,
  raw: string,
): Promise<ResolvedRole> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw.trim()))
    return refuseRole(db, orgId, scope, "BAD_ROLE", "Invalid role name.");
  const slug = canonicalRoleSlug(scope, raw);
  const results = await rolesBySlug(db, orgId, slug);
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
    const kind = scope === "org" ? "an organization" : "a site";
    return refuseRole(db, orgId, scope, "BAD_ROLE", `Role ${raw} is not ${kind} role.`);
  }
  return refuseRole(db, orgId, scope, "ROLE_NOT_FOUND", `No role ${raw}.`);
}
