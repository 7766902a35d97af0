/**
 * A person's grant on one site, read uncached for content's dashboard writes (issue 34, `IdentityRpc.siteGrant`):
 * the same facts as the edge context (session liveness, memberships under the SSO rule), narrowed to the
 * site's organization and the site, with the account's display name (the write's byline), so content's
 * write costs one call to identity.
 */
import { parseId } from "../../lib/ids";
import type { SiteGrant, SiteGrantQuery } from "../../lib/rpc";
import { displayNameOf } from "../account/me-store";
import { edgeContextFor } from "./edge-context";

/** Whether the input names a person, a session, a site and an organization (never sent otherwise by content). */
function wellFormed(input: SiteGrantQuery): boolean {
  const fields = [input?.user_id, input?.session_id, input?.site_id, input?.org_id];
  return fields.every((f) => typeof f === "string" && f !== "");
}

/** null when the account no longer exists (or the input is malformed: nothing is granted). */
export async function siteGrantOf(db: D1Database, input: SiteGrantQuery): Promise<SiteGrant | null> {
  if (!wellFormed(input)) return null;
  const [context, displayName] = await Promise.all([
    edgeContextFor(db, input.user_id, input.session_id),
    displayNameOf(db, input.user_id),
  ]);
  if (!context) return null;
  const [orgId, siteId] = [parseId(input.org_id), parseId(input.site_id)];
  return {
    session_active: context.session_active,
    org_memberships: context.org_memberships.filter((m) => parseId(m.org_id) === orgId),
    site_memberships: context.site_memberships.filter((m) => parseId(m.site_id) === siteId),
    display_name: displayName,
  };
}
