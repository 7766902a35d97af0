/**
 * A person's grant on a site ended (docs/decisions/grant-endings.md): identity removed them from the organization or the site,
 * changed their role, they left, or their account was erased. The API keys and webhooks they created under
 * that grant end with it, in one D1 batch: keys are revoked (the person holds the secret, so the key
 * cannot be handed to someone else), webhooks are deleted with their pending deliveries (the receiver is
 * the person's choice; nothing more is sent to it). Identity tells the site's owners what ended.
 *
 * Only credentials created up to the grant's end (`ended_at`, identity's clock) end; a key made later was
 * granted afresh. The ending is recorded (`ended_member_grants`) so that for `ENDED_GRANT_QUARANTINE_MS`
 * after content learned it, the person's edge headers (which the gateway may cache for 30 s) do not
 * administer the site's integrations: a removed member cannot mint a new key in that window.
 * Idempotent: a repeated ending revokes and deletes nothing more.
 */
import type { apiKeys, webhooks } from "../../../schema/content";
import type { Logger } from "../../lib/log";
import type { Computed, Row } from "../../lib/rows";
import type { EndedIntegrations, MemberGrantEnding } from "../../lib/rpc";
import { clockNow } from "../core/clock";
import { keyContexts } from "./key-cache";

/** As `SITE_GRANT_QUARANTINE_MS`: the gateway's membership cache (`EDGE_CONTEXT_TTL`, 30 s). */
export const ENDED_GRANT_QUARANTINE_MS = 30_000;
/** Ending records older than this are purged by the next ending. */
const ENDING_RECORD_KEPT_MS = 24 * 3600_000;
/** Who revoked a key its creator's ended grant took with it (`api_keys.revoked_by`). */
export const REVOKED_BY_GRANT_END = "system:grant-ended";

/**
 * SQL condition on a key or webhook row (`t`) created by ?1 up to ?2 under the ending: `site` scope, on
 * site ?3; `org` scope, stamped for organization ?4 and on none of the sites of the JSON array ?5.
 */
const CREATED_UNDER_GRANT = `t.created_by = ?1 AND t.created_at <= ?2
  AND ((?6 = 'site' AND t.site_id = ?3)
    OR (?6 = 'org' AND t.org_id = ?4 AND t.site_id NOT IN (SELECT value FROM json_each(?5))))`;

function endingParams(e: MemberGrantEnding) {
  return [e.user_id, e.ended_at, e.site_id, e.org_id, JSON.stringify(e.except_site_ids), e.scope];
}

function bindEnding(stmt: D1PreparedStatement, e: MemberGrantEnding): D1PreparedStatement {
  return stmt.bind(...endingParams(e));
}

/** Whether the input names what it ends: a site for `site`, an organization for `org`. */
function wellFormed(e: MemberGrantEnding): boolean {
  if (typeof e?.user_id !== "string" || e.user_id === "" || Number.isNaN(Date.parse(e.ended_at)))
    return false;
  if (!Array.isArray(e.except_site_ids) || !e.except_site_ids.every((s) => typeof s === "string"))
    return false;
  if (e.scope === "site") return typeof e.site_id === "string" && e.site_id !== "";
  return e.scope === "org" && typeof e.org_id === "string" && e.org_id !== "";
}

/** Ends what the ending names; a malformed one (never sent by identity) ends nothing and is logged. */
export async function endMemberGrants(
  db: D1Database,
  e: MemberGrantEnding,
  log: Logger,
): Promise<EndedIntegrations> {
  if (!wellFormed(e)) {
    log.error("member_grant_ending_malformed", {});
    return { api_keys: [], webhooks: [] };
  }
  const now = new Date(clockNow());
  const [keys, , hooks] = await db.batch([
    db
      .prepare(
        `UPDATE api_keys AS t SET revoked_at = ?7, revoked_by = ?8
         WHERE t.revoked_at IS NULL AND ${CREATED_UNDER_GRANT} RETURNING id, site_id, name`,
      )
      .bind(...endingParams(e), now.toISOString(), REVOKED_BY_GRANT_END),
    bindEnding(
      db.prepare(
        `DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT t.id FROM webhooks t WHERE ${CREATED_UNDER_GRANT})`,
      ),
      e,
    ),
    bindEnding(
      db.prepare(`DELETE FROM webhooks AS t WHERE ${CREATED_UNDER_GRANT} RETURNING id, site_id, url`),
      e,
    ),
    db
      .prepare(
        `INSERT INTO ended_member_grants (user_id, scope, org_id, site_id, except_site_ids_json, ended_at, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        e.user_id,
        e.scope,
        e.org_id,
        e.site_id,
        JSON.stringify(e.except_site_ids),
        e.ended_at,
        now.toISOString(),
      ),
    db
      .prepare("DELETE FROM ended_member_grants WHERE recorded_at < ?")
      .bind(new Date(now.getTime() - ENDING_RECORD_KEPT_MS).toISOString()),
  ]);
  const ended: EndedIntegrations = {
    api_keys: (keys?.results ?? []) as Row<typeof apiKeys, "id" | "site_id" | "name">[],
    webhooks: (hooks?.results ?? []) as Row<typeof webhooks, "id" | "site_id" | "url">[],
  };
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
  const row = await db
    .prepare(
      `SELECT 1 AS ended FROM ended_member_grants g
       WHERE g.user_id = ?1 AND g.recorded_at > ?2
         AND ((g.scope = 'site' AND g.site_id = ?3)
           OR (g.scope = 'org' AND g.org_id = ?4 AND ?3 NOT IN (SELECT value FROM json_each(g.except_site_ids_json))))
       LIMIT 1`,
    )
    .bind(userId, since, site.id, site.org_id)
    .first<Computed<{ ended: number }>>();
  return row !== null;
}
