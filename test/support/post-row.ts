/**
 * One post row as content's store reads it (`PostRow`), for the unit tests of functions that take a row
 * (the export line, the editable source, the webhook event of an edit): a public draft written by a key,
 * every optional field empty. A test overrides the fields it is about.
 */
import type { PostRow } from "../../src/content/posts/store";

export function postRow(over: Partial<PostRow> = {}): PostRow {
  return {
    id: "01J00000000000000000000000",
    site_id: "s",
    slug: "post",
    language: "en",
    post_type: "post",
    title: "Post",
    summary: null,
    blocks_json: null,
    status: "draft",
    access: "public",
    published_at: null,
    author_slug: null,
    author_name: null,
    author_user_id: null,
    featured_image_id: null,
    seo_json: "{}",
    created_by_key_id: "k",
    created_by_kind: "key",
    created_by_id: "k",
    created_by_name: "Demo key",
    updated_by_kind: null,
    updated_by_id: null,
    updated_by_name: null,
    review_requested: 0,
    fields: null,
    created_at: "2026-05-01T00:00:00.000Z",
    updated_at: "2026-05-01T00:00:00.000Z",
    revision: 0,
    ...over,
  };
}
