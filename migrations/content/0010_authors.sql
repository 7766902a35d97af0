-- Authorship (issue 11). A key records the authorship context of the staff user who created it: the
-- user (created_by, already there) and the display name of its byline (author_name). Keys created
-- before this migration have no author_name: they cannot write posts (422 NO_AUTHORSHIP_CONTEXT).
ALTER TABLE api_keys ADD COLUMN author_name TEXT;

-- Author personas of a site, made from a key's context on its first post: one per (site, user, display
-- name); the slug is unique per site (derived from the display name, -2, -3, … on a clash).
CREATE TABLE author_personas (
  site_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  display_name TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, slug)
);
CREATE UNIQUE INDEX author_personas_context ON author_personas (site_id, user_id, display_name);

-- A post carries its persona's display name next to its slug (personas are never renamed).
ALTER TABLE posts ADD COLUMN author_name TEXT;

-- Media a post references (its featured image and the media_id of its image blocks), kept by triggers in
-- the same statement as every post write (a stored body that is not JSON references nothing), so public reads of media (pk_ keys) can show only assets that
-- public posts use with one indexed lookup.
CREATE TABLE post_media_refs (
  post_id TEXT NOT NULL,
  media_id TEXT NOT NULL,
  site_id TEXT NOT NULL,
  PRIMARY KEY (post_id, media_id)
);
CREATE INDEX post_media_refs_media ON post_media_refs (site_id, media_id);

CREATE TRIGGER post_media_refs_insert AFTER INSERT ON posts BEGIN
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, new.featured_image_id, new.site_id WHERE new.featured_image_id IS NOT NULL;
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, json_extract(new.blocks_json, b.fullkey || '.data.media_id'), new.site_id
    FROM json_each(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') b
    WHERE b.type = 'object' AND json_extract(new.blocks_json, b.fullkey || '.type') = 'image'
      AND json_type(new.blocks_json, b.fullkey || '.data.media_id') = 'text';
END;
CREATE TRIGGER post_media_refs_update AFTER UPDATE OF featured_image_id, blocks_json ON posts BEGIN
  DELETE FROM post_media_refs WHERE post_id = old.id;
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, new.featured_image_id, new.site_id WHERE new.featured_image_id IS NOT NULL;
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, json_extract(new.blocks_json, b.fullkey || '.data.media_id'), new.site_id
    FROM json_each(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') b
    WHERE b.type = 'object' AND json_extract(new.blocks_json, b.fullkey || '.type') = 'image'
      AND json_type(new.blocks_json, b.fullkey || '.data.media_id') = 'text';
END;
CREATE TRIGGER post_media_refs_delete AFTER DELETE ON posts BEGIN
  DELETE FROM post_media_refs WHERE post_id = old.id;
END;

-- Existing posts' references.
INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
  SELECT id, featured_image_id, site_id FROM posts WHERE featured_image_id IS NOT NULL;
INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
  SELECT p.id, json_extract(p.blocks_json, b.fullkey || '.data.media_id'), p.site_id
  FROM posts p, json_each(CASE WHEN json_valid(p.blocks_json) THEN p.blocks_json END, '$.blocks') b
  WHERE b.type = 'object'
    AND json_extract(p.blocks_json, b.fullkey || '.type') = 'image'
    AND json_type(p.blocks_json, b.fullkey || '.data.media_id') = 'text';
