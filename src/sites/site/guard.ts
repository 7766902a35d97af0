/**
 * The by-id guard of `/v1/sites/{id}` and everything under it. A segment that parses as an id must name
 * a visible site the caller may see; otherwise the answer is the SAME 404 as for a nonexistent site, so
 * the status never confirms that another tenant's site exists. A segment that is not an id passes
 * untouched (so `/batch` and `/by-host` coexist with `/{id}`); its handler answers 400. What a member
 * may do there is the permission matrix (permissions.ts): a member lacking the handler's permission
 * gets 403 FORBIDDEN.
 */
import type { Context, Next } from "hono";
import { readEdgeIdentity } from "../../lib/edge";
import { parseId } from "../../lib/ids";
import type { ApiError } from "../../lib/problem";
import type { SitesAppEnv } from "../core/app-env";
import { fail, problem } from "../errors";
import { type SitePermission, sitePermissions } from "./permissions";
import { getVisibleSiteWithShares, type SiteRow } from "./store";

export function siteNotFound(): ApiError {
  return problem("NOT_FOUND", "Site not found.");
}

export async function siteGuard(c: Context<SitesAppEnv>, next: Next) {
  const id = parseId(c.req.param("id") ?? "");
  if (id === null) return next();
  const found = await getVisibleSiteWithShares(c.env.DB, id);
  if (!found) throw siteNotFound();
  const permissions = sitePermissions(readEdgeIdentity(c.req.raw.headers), found.site, found.shares);
  if (!permissions.has("read")) throw siteNotFound();
  c.set("site", found.site);
  c.set("sitePermissions", permissions);
  return next();
}

/**
 * The guarded site of a by-id handler, for a caller holding `permission` on it (403 FORBIDDEN for a
 * member without it); a segment that is not an id is the handler's 400.
 */
export function guardedSite(c: Context<SitesAppEnv>, permission: SitePermission = "read"): SiteRow {
  const site = c.get("site");
  if (!site) fail("BAD_REQUEST", "id: must be a ULID or UUID");
  if (!c.get("sitePermissions")?.has(permission)) {
    fail("FORBIDDEN", `Your role on this site does not allow this (needs "${permission}").`);
  }
  return site;
}

/** Whether the guarded caller holds `permission` on the site (a finer rule inside a handler). */
export function holdsPermission(c: Context<SitesAppEnv>, permission: SitePermission): boolean {
  return c.get("sitePermissions")?.has(permission) ?? false;
}
