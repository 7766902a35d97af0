/** Role resolution: presets, their aliases in both scopes, and custom roles. */

import { fail } from "../errors";
import { rolesBySlug } from "./roles-store";

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
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw.trim())) fail("BAD_ROLE", "Invalid role name.");
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
    fail("BAD_ROLE", `Role ${raw} is not a${scope === "org" ? "n organization" : " site"} role.`);
  }
  fail("ROLE_NOT_FOUND", `No role ${raw}.`);
}
