/**
 * The editable source of a post: metadata, taxonomy and `blocks_json` exactly as stored (unrendered,
 * unsanitized), for clients that read, modify and send the post back with PATCH; and who created it and
 * who changed it last (issue 34).
 */
import { fail } from "../errors";
import { parseBlocksDocument } from "./render/render-blocks";
import { resolveEditablePost } from "./resolve";
import { revisionTag } from "./revision-tag";
import { actorView } from "./roles";
import { taxonomy } from "./shapes";
import { effectiveStatus, type ListableStatus, type PostRow, readUpdatedAt } from "./store";

/** The source of `row`; absent fields are null, absent taxonomy []. */
export function postSource(row: PostRow, now: string) {
  let blocks: unknown = null;
  if (row.blocks_json !== null) {
    // Refuse to hand out something a client would "edit" and send back as an empty document.
    if (!parseBlocksDocument(row.blocks_json).ok) {
      fail("STORED_BODY_UNRECOGNIZED", {
        detail: "The stored body of this post is in an unrecognized format.",
        reason: `post ${row.id}: blocks_json is not an Editor.js document`,
      });
    }
    blocks = JSON.parse(row.blocks_json);
  }
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    status: effectiveStatus(row, now) as ListableStatus,
    access: row.access,
    published_at: row.published_at,
    language: row.language,
    post_type: row.post_type,
    author_slug: row.author_slug,
    featured_image_id: row.featured_image_id,
    ...taxonomy(row),
    blocks_json: blocks,
    created_at: row.created_at,
    updated_at: readUpdatedAt(row, now),
    review_requested: row.review_requested === 1,
    created_by: actorView(row.created_by_kind, row.created_by_id, row.created_by_name),
    updated_by: actorView(row.updated_by_kind, row.updated_by_id, row.updated_by_name),
  };
}

/**
 * The source of the site's post `reference`, resolved as PATCH resolves it (drafts and scheduled
 * included), with the ETag of its revision for an If-Match on the PATCH that sends it back.
 */
export async function readPostSource(
  db: D1Database,
  siteId: string,
  reference: string,
  language: string | null,
  now: string,
) {
  const row = await resolveEditablePost(db, siteId, reference, language, now);
  return { source: postSource(row, now), etag: revisionTag(row, now) };
}
