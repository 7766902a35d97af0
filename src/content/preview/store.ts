/**
 * Preview links (migration 0018, docs/decisions/previews.md): one row per link naming what granted it, and
 * the keyless read: the live link, its post, the post's media and its site in one batch. The link's insert
 * stays raw SQL (`INSERT … SELECT` guarded by the key and the site's owner), as does the read (joins over
 * the `site_owner` view, which the drizzle schema does not declare); the endings go through the builder.
 */
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { previewLinks } from "../../../schema/content";
import { newId } from "../../lib/ids";
import { batch, prepared, query } from "../../lib/sql";
import { notFenced } from "../groups/fence-store";
import type { SiteAddress } from "../keys/key-context";
import { MEDIA_IMAGE_COLUMNS, type MediaImageRow } from "../media/media-image";
import { FEATURED_MEDIA_SQL, POST_COLUMNS, type PostRow } from "../posts/store";

/** Expired links are kept this long (who made a link that leaked), then purged by the hourly cron. */
export const PREVIEW_LINK_KEPT_MS = 7 * 86_400_000;

/** Who makes a link: a key (the `/v1` route) or a signed-in person (the dashboard route, issue 34). */
export type PreviewMaker = { kind: "key"; keyId: string } | { kind: "person"; userId: string };

/**
 * Stores a link made by `by` for the site's current owner. A key's link: nothing is stored (false) when the
 * key is no longer live and stamped for that owner (the link would be born dead). A person's link names the
 * person (`user_id`, no key): it ends when identity ends their grant on the site (`endGrantIntegrations`).
 */
export async function insertPreviewLink(
  db: D1Database,
  link: {
    tokenHash: string;
    siteId: string;
    postId: string;
    by: PreviewMaker;
    now: string;
    expiresAt: string;
  },
): Promise<boolean> {
  const by = link.by;
  const statement =
    by.kind === "key"
      ? db
          .prepare(
            `INSERT INTO preview_links (id, token_hash, site_id, post_id, org_id, key_id, user_id, created_at, expires_at)
             SELECT ?1, ?2, ?3, ?4, o.org_id, k.id, NULL, ?6, ?7
             FROM api_keys k JOIN site_owner o ON o.site_id = k.site_id AND o.org_id = k.org_id
             WHERE k.id = ?5 AND k.site_id = ?3 AND k.revoked_at IS NULL AND k.carried_over_at IS NULL`,
          )
          .bind(newId(), link.tokenHash, link.siteId, link.postId, by.keyId, link.now, link.expiresAt)
      : db
          .prepare(
            `INSERT INTO preview_links (id, token_hash, site_id, post_id, org_id, key_id, user_id, created_at, expires_at)
             SELECT ?1, ?2, ?3, ?4, o.org_id, NULL, ?5, ?6, ?7 FROM site_owner o WHERE o.site_id = ?3`,
          )
          .bind(newId(), link.tokenHash, link.siteId, link.postId, by.userId, link.now, link.expiresAt);
  const result = await statement.run();
  return result.meta.changes > 0;
}

/** Ends every link of the post (`DELETE …/preview`). */
export async function endPostPreviews(db: D1Database, siteId: string, postId: string, now: string) {
  await drizzle(db)
    .update(previewLinks)
    .set({ ended_at: now })
    .where(
      and(eq(previewLinks.post_id, postId), eq(previewLinks.site_id, siteId), isNull(previewLinks.ended_at)),
    )
    .run();
}

/**
 * Ends the site's links that its state no longer grants: the site is not active (deleted, archived,
 * deactivated) or its owner is not the organization a link was made for (a transfer). Part of the batch
 * that changes that state (the sites push, the transfer's restamp), so an ending stays one even when the
 * site is restored or transferred back; the read checks the same conditions for the moments between.
 */
export function endStalePreviewsStatement(db: D1Database, siteId: string, now: string): D1PreparedStatement {
  const l = previewLinks;
  return prepared(
    db,
    drizzle(db)
      .update(l)
      .set({ ended_at: now })
      .where(
        and(
          eq(l.site_id, siteId),
          isNull(l.ended_at),
          sql`NOT EXISTS (SELECT 1 FROM sites s JOIN site_owner o ON o.site_id = s.id
            WHERE s.id = ${siteId} AND s.status = 'active' AND o.org_id = ${l.org_id})`,
        ),
      ),
  );
}

/** Deletes links that expired before `before`. */
export async function purgeExpiredPreviews(db: D1Database, before: string): Promise<number> {
  const result = await drizzle(db)
    .delete(previewLinks)
    .where(and(lt(previewLinks.expires_at, before), notFenced(previewLinks.site_id)))
    .run();
  return result.meta.changes;
}

export interface PreviewRead {
  post: PostRow;
  site: SiteAddress;
  media: Map<string, MediaImageRow>;
}

/**
 * What the link with token hash `hash` shows at `now`, or null: unknown, ended or expired; its post
 * deleted; its site not active or owned by another organization than the link's; the key that made it
 * revoked, carried over or stamped for another organization (revoked too when its creator's grant ended).
 * A person's link (no key, `user_id`) answers under the same conditions but the key's; the end of the
 * person's grant on the site ends the row itself (`endGrantIntegrations`).
 */
export async function readPreview(db: D1Database, hash: string, now: string): Promise<PreviewRead | null> {
  const linked = "(SELECT post_id FROM preview_links WHERE token_hash = ?)";
  const [live, post, media] = await batch(db, [
    query<SiteAddress>(
      db,
      `SELECT s.id, s.slug, s.primary_domain, s.default_language FROM preview_links l
         JOIN posts p ON p.id = l.post_id AND p.site_id = l.site_id AND p.status != 'deleted'
         JOIN sites s ON s.id = l.site_id AND s.status = 'active'
         JOIN site_owner o ON o.site_id = l.site_id AND o.org_id = l.org_id
         LEFT JOIN api_keys k ON k.id = l.key_id AND k.site_id = l.site_id AND k.revoked_at IS NULL
           AND k.carried_over_at IS NULL AND k.org_id = l.org_id
         WHERE l.token_hash = ? AND l.ended_at IS NULL AND l.expires_at > ?
           AND (k.id IS NOT NULL OR (l.key_id IS NULL AND l.user_id IS NOT NULL))`,
      hash,
      now,
    ),
    query<PostRow>(
      db,
      `SELECT ${POST_COLUMNS}, ${FEATURED_MEDIA_SQL} FROM posts p WHERE p.id = ${linked}`,
      hash,
    ),
    query<MediaImageRow>(
      db,
      `SELECT ${MEDIA_IMAGE_COLUMNS} FROM media m JOIN post_media_refs r ON r.media_id = m.id AND r.site_id = m.site_id
         WHERE r.post_id = ${linked} AND m.status != 'deleted'`,
      hash,
    ),
  ]);
  const siteRow = live.rows[0];
  const postRow = post.rows[0];
  if (!siteRow || !postRow) return null;
  const images = media.rows.map((r) => [r.id, r] as const);
  return { post: postRow, site: siteRow, media: new Map(images) };
}
