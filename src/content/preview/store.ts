/** Preview secrets (migration 0016) and the preview read: secret, post, its media and its site in one batch. */
import type { postPreviewSecrets } from "../../../schema/content";
import type { Row } from "../../lib/rows";
import type { SiteAddress } from "../keys/key-context";
import { MEDIA_IMAGE_COLUMNS, type MediaImageRow } from "../media/media-image";
import { FEATURED_MEDIA_SQL, POST_COLUMNS, type PostRow } from "../posts/store";
import { newPreviewSecret } from "./token";

/** The post's preview secret, made on first use (two concurrent first uses agree: the first insert wins). */
export async function previewSecret(
  db: D1Database,
  siteId: string,
  postId: string,
  now: string,
): Promise<string> {
  const [, read] = await db.batch([
    db
      .prepare(
        "INSERT OR IGNORE INTO post_preview_secrets (post_id, site_id, secret, rotated_at) VALUES (?, ?, ?, ?)",
      )
      .bind(postId, siteId, newPreviewSecret(), now),
    db
      .prepare("SELECT secret FROM post_preview_secrets WHERE post_id = ? AND site_id = ?")
      .bind(postId, siteId),
  ]);
  return (read!.results[0] as Row<typeof postPreviewSecrets, "secret">).secret;
}

/** A new secret for the post: every link signed with the old one stops working at once. */
export async function rotatePreviewSecret(db: D1Database, siteId: string, postId: string, now: string) {
  await db
    .prepare(
      `INSERT INTO post_preview_secrets (post_id, site_id, secret, rotated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (post_id) DO UPDATE SET secret = excluded.secret, rotated_at = excluded.rotated_at`,
    )
    .bind(postId, siteId, newPreviewSecret(), now)
    .run();
}

export interface PreviewRead {
  secret: string;
  post: PostRow;
  site: SiteAddress;
  media: Map<string, MediaImageRow>;
}

/** What a preview link shows, or null (no secret, post deleted or gone, site gone). */
export async function readPreview(db: D1Database, postId: string): Promise<PreviewRead | null> {
  const [secret, post, media, site] = await db.batch([
    db.prepare("SELECT secret, site_id FROM post_preview_secrets WHERE post_id = ?").bind(postId),
    db
      .prepare(
        `SELECT ${POST_COLUMNS}, ${FEATURED_MEDIA_SQL} FROM posts p WHERE p.id = ? AND p.status != 'deleted'
           AND p.site_id = (SELECT site_id FROM post_preview_secrets WHERE post_id = ?)`,
      )
      .bind(postId, postId),
    db
      .prepare(
        `SELECT ${MEDIA_IMAGE_COLUMNS} FROM media m JOIN post_media_refs r ON r.media_id = m.id AND r.site_id = m.site_id
         WHERE r.post_id = ? AND m.status != 'deleted'`,
      )
      .bind(postId),
    db
      .prepare(
        `SELECT id, slug, primary_domain, default_language FROM sites
         WHERE id = (SELECT site_id FROM post_preview_secrets WHERE post_id = ?)`,
      )
      .bind(postId),
  ]);
  const secretRow = secret!.results[0] as Row<typeof postPreviewSecrets, "secret"> | undefined;
  const postRow = post!.results[0] as PostRow | undefined;
  const siteRow = site!.results[0] as SiteAddress | undefined;
  if (!secretRow || !postRow || !siteRow) return null;
  const images = (media!.results as MediaImageRow[]).map((r) => [r.id, r] as const);
  return { secret: secretRow.secret, post: postRow, site: siteRow, media: new Map(images) };
}
