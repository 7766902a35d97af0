/**
 * What a signed-in staff person may do with a site (`staffAccess`): the one permission model of site
 * administration (src/lib/site-permissions.ts, which sites' by-id routes read too), over the edge's
 * description of the person (headers set by the gateway from the verified session). Who may administer a
 * site's API keys, webhooks and forms: `integrations`; the dashboard's content routes check their own
 * permission (keys/person.ts). A person holding nothing on the site, and a missing, deleted or archived
 * site, gets the same opaque 404, so these routes cannot be used to probe which site ids exist.
 */
import { bearerRefusal } from "../../lib/bearer";
import { type EdgeIdentity, readEdgeIdentity } from "../../lib/edge";
import type { ApiError } from "../../lib/problem";
import type { SiteProjection } from "../../lib/rpc";
import { personSitePermissions, type SitePermission } from "../../lib/site-permissions";
import { clockNow } from "../core/clock";
import { problem } from "../errors";
import { getStaffSite, INACTIVE_SITE_STATUSES, type StaffSite } from "../site/store";
import { siteOwner } from "../transfers/store";
import { grantRecentlyEnded } from "./member-grants";

export function siteNotFound(): ApiError {
  return problem("NOT_FOUND", "No such site.");
}

/** The refusal of a staff request without a signed-in staff session, before any site is looked at. */
function noStaffSession(): ApiError {
  return bearerRefusal("missing", "A signed-in staff session is required.");
}

/**
 * A site content does not know (the directory has no row: issue 38), answered exactly as `staffAccess`
 * answers a missing one: 401 without a session, else the opaque 404.
 */
export function unknownStaffSite(identity: EdgeIdentity): ApiError {
  return identity.userId ? siteNotFound() : noStaffSession();
}

/**
 * The gateway caches a user's memberships for at most 30 s (`EDGE_CONTEXT_TTL`), so for that long after a
 * site changes owner a site membership the transfer ended may still be claimed by the edge headers. Site-
 * scope grants are not honoured here until this much time has passed since the change (issue 19); the new
 * owner's organization administrators are unaffected.
 */
export const SITE_GRANT_QUARANTINE_MS = 30_000;

/**
 * The person's memberships of the site's organization and of the site as identity holds them now (one RPC,
 * keys/person.ts), in place of the edge headers' (which the gateway may cache for 30 s); throws 401 when the
 * session or the account ended.
 */
export type Regrant = (userId: string, site: { id: string; org_id: string }) => Promise<EdgeIdentity>;

/**
 * The signed-in person, the site (with its content version) and what they may do with it (the one
 * permission model), or 401 (no session) / 404 (no site, deleted or archived — invisible to customers, as
 * sites says — or nothing granted). Owners (identity's structural mark), organization admins and site
 * owners; never a reader session. Content keeps no shares.
 */
export async function staffAccess(
  identity: EdgeIdentity,
  db: D1Database,
  siteId: string,
  regrant?: Regrant,
): Promise<{ userId: string; site: StaffSite; permissions: Set<SitePermission> }> {
  if (!identity.userId) throw noStaffSession();
  const [projection, owner] = await Promise.all([getStaffSite(db, siteId), siteOwner(db, siteId)]);
  if (!projection || !owner || INACTIVE_SITE_STATUSES.has(projection.status)) throw siteNotFound();
  // The owner as content knows it: the projection, or an applied transfer when newer (a push may lag).
  const site = { ...projection, org_id: owner.org_id };
  const changed = owner.changed_at === null ? 0 : Date.parse(owner.changed_at);
  const settled = !(clockNow() - changed < SITE_GRANT_QUARANTINE_MS);
  // A write reads the person's memberships afresh from identity (`regrant`); a read trusts the edge's.
  const current = regrant ? await regrant(identity.userId, site) : identity;
  const person = settled ? current : { ...current, siteMemberships: [] };
  const permissions = personSitePermissions(person, site);
  if (permissions.size === 0) throw siteNotFound();
  // A grant identity just ended may still be claimed by the gateway's cached memberships (docs/decisions/grant-endings.md);
  // memberships read afresh are identity's own word, after any ending.
  if (!regrant && (await grantRecentlyEnded(db, identity.userId, site))) throw siteNotFound();
  return { userId: identity.userId, site, permissions };
}

/**
 * Who may administer a site's keys, webhooks and forms: `integrations` (never `members:manage` alone, nor a
 * reader session; the model never grants it through a share). The caller's user id and the site, or
 * 401 / the same 404 as a missing site.
 */
export async function authorizeKeyAdmin(
  headers: Headers,
  db: D1Database,
  siteId: string,
): Promise<{ userId: string; site: SiteProjection }> {
  const { userId, site, permissions } = await staffAccess(readEdgeIdentity(headers), db, siteId);
  if (!permissions.has("integrations")) throw siteNotFound();
  const { content_version: _version, ...projection } = site;
  return { userId, site: projection };
}
