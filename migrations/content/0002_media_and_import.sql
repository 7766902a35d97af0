-- Media tags (filter `tag_id` of the media list), variant bookkeeping, and bulk-import line records.
CREATE TABLE media_tags (
  media_id TEXT NOT NULL,
  tag_id TEXT NOT NULL,
  PRIMARY KEY (media_id, tag_id)
);
CREATE INDEX media_tags_tag ON media_tags (tag_id, media_id);
ALTER TABLE media ADD COLUMN variants_json TEXT NOT NULL DEFAULT '[]';
CREATE INDEX media_site_folder ON media (site_id, folder_id, created_at DESC);

-- Bulk import: one row per imported line content, so repeating an import never duplicates a post.
CREATE TABLE import_lines (
  site_id TEXT NOT NULL,
  line_hash TEXT NOT NULL,
  post_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, line_hash)
);
