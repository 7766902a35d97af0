/**
 * What the end of a person's grant writes and reads (keys/member-grants.ts, docs/decisions/grant-endings.md):
 * the one batch that revokes their keys, deletes their webhooks and records the ending, and the read of a
 * recent ending (the quarantine).
 */
import { lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type apiKeys, endedMemberGrants, webhookDeliveries, type webhooks } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import type { EndedIntegrations, MemberGrantEnding } from "../../lib/rpc";
import { batch, first, fragment, query } from "../../lib/sql";

/** Who revoked a key its creator's ended grant took with it (`api_keys.revoked_by`). */
export const REVOKED_BY_GRANT_END = "system:grant-ended";

/**
 * SQL condition on a key or webhook row (`t`) created by ?1 up to ?2 under the ending: `site` scope, on
 * site ?3; `org` scope, stamped for organization ?4 and on none of the sites of the JSON array ?5.
 */
const CREATED_UNDER_GRANT = `t.created_by = ?1 AND t.created_at <= ?2
  AND ((?6 = 'site' AND t.site_id = ?3)
    OR (?6 = 'org' AND t.org_id = ?4 AND t.site_id NOT IN (SELECT value FROM json_each(?5))))`;

/**
 * SQL condition on a person's preview link (`t`, migration 0018: `user_id`, no key) made by ?1 up to ?2
 * under the ending: `site` scope, on site ?3; `org` scope, for organization ?4 and on none of the sites of ?5.
 */
const PREVIEWED_UNDER_GRANT = `t.key_id IS NULL AND t.user_id = ?1 AND t.created_at <= ?2
  AND ((?6 = 'site' AND t.site_id = ?3)
    OR (?6 = 'org' AND t.org_id = ?4 AND t.site_id NOT IN (SELECT value FROM json_each(?5))))`;

function endingParams(e: MemberGrantEnding) {
  return [e.user_id, e.ended_at, e.site_id, e.org_id, JSON.stringify(e.except_site_ids), e.scope];
}

/**
 * Ends what `e` names in one batch: revokes the keys and deletes the webhooks (and their deliveries)
 * created under the grant, ends the preview links the person made under it (issue 34), records the ending
 * at `now`, and purges ending records older than `purgeBefore`. Answers the keys and webhooks it ended.
 */
export async function endGrantIntegrations(
  db: D1Database,
  e: MemberGrantEnding,
  now: Date,
  purgeBefore: Date,
): Promise<EndedIntegrations> {
  const [keys, , hooks] = await batch(db, [
    query<Row<typeof apiKeys, "id" | "site_id" | "name">>(
      db,
      `UPDATE api_keys AS t SET revoked_at = ?7, revoked_by = ?8
         WHERE t.revoked_at IS NULL AND ${CREATED_UNDER_GRANT} RETURNING id, site_id, name`,
      ...endingParams(e),
      now.toISOString(),
      REVOKED_BY_GRANT_END,
    ),
    drizzle(db)
      .delete(webhookDeliveries)
      .where(
        sql`${webhookDeliveries.webhook_id} IN (SELECT t.id FROM webhooks t WHERE ${fragment(CREATED_UNDER_GRANT, ...endingParams(e))})`,
      ),
    query<Row<typeof webhooks, "id" | "site_id" | "url">>(
      db,
      `DELETE FROM webhooks AS t WHERE ${CREATED_UNDER_GRANT} RETURNING id, site_id, url`,
      ...endingParams(e),
    ),
    query(
      db,
      `UPDATE preview_links AS t SET ended_at = ?7 WHERE t.ended_at IS NULL AND ${PREVIEWED_UNDER_GRANT}`,
      ...endingParams(e),
      now.toISOString(),
    ),
    drizzle(db)
      .insert(endedMemberGrants)
      .values({
        user_id: e.user_id,
        scope: e.scope,
        org_id: e.org_id,
        site_id: e.site_id,
        except_site_ids_json: JSON.stringify(e.except_site_ids),
        ended_at: e.ended_at,
        recorded_at: now.toISOString(),
      }),
    drizzle(db).delete(endedMemberGrants).where(lt(endedMemberGrants.recorded_at, purgeBefore.toISOString())),
  ]);
  return { api_keys: keys.rows, webhooks: hooks.rows };
}

/**
 * Whether an ending of `userId`'s grant on the site was recorded after `since`: a site-scope ending of
 * this site, or an organization-scope ending of its owner that did not except it.
 */
export async function recentEndingExists(
  db: D1Database,
  userId: string,
  since: string,
  site: { id: string; org_id: string },
): Promise<boolean> {
  const row = await first(
    query<Computed<{ ended: number }>>(
      db,
      `SELECT 1 AS ended FROM ended_member_grants g
       WHERE g.user_id = ?1 AND g.recorded_at > ?2
         AND ((g.scope = 'site' AND g.site_id = ?3)
           OR (g.scope = 'org' AND g.org_id = ?4 AND ?3 NOT IN (SELECT value FROM json_each(g.except_site_ids_json))))
       LIMIT 1`,
      userId,
      since,
      site.id,
      site.org_id,
    ),
  );
  return row !== null;
}
