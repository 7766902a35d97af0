/**
 * A person's grant on a site ended (docs/decisions/grant-endings.md): identity removed them from the organization or the site,
 * changed their role, they left, or their account was erased. The API keys and webhooks they created under
 * that grant end with it, in one D1 batch: keys are revoked (the person holds the secret, so the key
 * cannot be handed to someone else), webhooks are deleted with their pending deliveries (the receiver is
 * the person's choice; nothing more is sent to it), and the preview links the person made on the
 * dashboard (issue 34) end. Identity tells the site's owners what ended (keys and webhooks).
 *
 * Identity sends an ending for every change of the person's memberships that leaves them without
 * `integrations` on the site (removal, any role change, leaving, erasure): the roles holding it hold every
 * content permission, so every loss of a content permission comes with one. A person's links end on each
 * such ending, also on a change that kept the permission that made them (fail closed: a new link is one call).
 *
 * Only credentials created up to the grant's end (`ended_at`, identity's clock) end; a key made later was
 * granted afresh. The ending is recorded (`ended_member_grants`) so that for `ENDED_GRANT_QUARANTINE_MS`
 * after content learned it, the person's edge headers (which the gateway may cache for 30 s) do not
 * administer the site's integrations: a removed member cannot mint a new key in that window.
 * Idempotent: a repeated ending revokes and deletes nothing more.
 */
import type { Logger } from "../../lib/log";
import type { EndedIntegrations, MemberGrantEnding } from "../../lib/rpc";
import type { WorkerEnv } from "../core/bindings";
import { clockNow } from "../core/clock";
import { forEachGroup, siteEnv } from "../core/groups";
import { keyContexts } from "./key-cache";
import { endGrantIntegrations, recentEndingExists } from "./member-grants-store";

/** As `SITE_GRANT_QUARANTINE_MS`: the gateway's membership cache (`EDGE_CONTEXT_TTL`, 30 s). */
export const ENDED_GRANT_QUARANTINE_MS = 30_000;
/** Ending records older than this are purged by the next ending. */
const ENDING_RECORD_KEPT_MS = 24 * 3600_000;

/** Whether the input names what it ends: a site for `site`, an organization for `org`. */
function wellFormed(e: MemberGrantEnding): boolean {
  if (typeof e?.user_id !== "string" || e.user_id === "" || Number.isNaN(Date.parse(e.ended_at)))
    return false;
  if (!Array.isArray(e.except_site_ids) || !e.except_site_ids.every((s) => typeof s === "string"))
    return false;
  if (e.scope === "site") return typeof e.site_id === "string" && e.site_id !== "";
  return e.scope === "org" && typeof e.org_id === "string" && e.org_id !== "";
}

/**
 * Ends what the ending names, on the group that holds it (docs/decisions/site-groups.md): a `site` ending on
 * its site's group (a site the directory does not know holds nothing to end); an `org` ending, whose sites may
 * be in any group, on every group, recorded in each (the quarantine reads the site's own group), the ended
 * keys and webhooks merged in group order. A malformed ending (never sent by identity) ends nothing and is
 * logged.
 */
export async function endMemberGrants(
  env: WorkerEnv,
  e: MemberGrantEnding,
  log: Logger,
): Promise<EndedIntegrations> {
  if (!wellFormed(e)) {
    log.error("member_grant_ending_malformed", {});
    return { api_keys: [], webhooks: [] };
  }
  const now = new Date(clockNow());
  const purgeBefore = new Date(now.getTime() - ENDING_RECORD_KEPT_MS);
  let ended: EndedIntegrations;
  if (e.scope === "site") {
    const groupEnv = e.site_id ? await siteEnv(env, e.site_id) : null;
    if (!groupEnv) return { api_keys: [], webhooks: [] };
    ended = await endGrantIntegrations(groupEnv.DB, e, now, purgeBefore);
  } else {
    const perGroup = await forEachGroup(env, (groupEnv) =>
      endGrantIntegrations(groupEnv.DB, e, now, purgeBefore),
    );
    ended = {
      api_keys: perGroup.flatMap((g) => g.api_keys),
      webhooks: perGroup.flatMap((g) => g.webhooks),
    };
  }
  for (const key of ended.api_keys) keyContexts.forgetKey(key.id);
  for (const site of new Set(ended.api_keys.map((k) => k.site_id))) keyContexts.forgetSite(site);
  return ended;
}

/**
 * Whether `userId`'s grant on the site ended less than `ENDED_GRANT_QUARANTINE_MS` ago (content's clock):
 * a site-scope ending of this site, or an organization-scope ending of its owner that did not except it.
 */
export async function grantRecentlyEnded(
  db: D1Database,
  userId: string,
  site: { id: string; org_id: string },
): Promise<boolean> {
  const since = new Date(clockNow() - ENDED_GRANT_QUARANTINE_MS).toISOString();
  return recentEndingExists(db, userId, since, site);
}
