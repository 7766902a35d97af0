-- Issue 33 ("Blocks"): the standard Editor.js image form, `data.file.url`, on the platform's own media
-- (MEDIA_PUBLIC_BASE/sites/{site_id}/{media_id}.{ext}, or a variant /sites/{site_id}/{media_id}/{width}.{ext})
-- references that asset as `data.media_id` does: post_media_refs records it too, so the public reads load
-- the asset and render the block's responsive <picture>, and pk_ media reads see it as used. The id is the
-- path segment after `/sites/{the post's site}/`; the renderer checks the whole URL against
-- MEDIA_PUBLIC_BASE (src/content/posts/render/media-url.ts), so a foreign URL at most adds an unused row.

DROP TRIGGER post_media_refs_insert;
DROP TRIGGER post_media_refs_update;

CREATE TRIGGER post_media_refs_insert AFTER INSERT ON posts BEGIN
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, new.featured_image_id, new.site_id WHERE new.featured_image_id IS NOT NULL;
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, json_extract(new.blocks_json, b.fullkey || '.data.media_id'), new.site_id
    FROM json_each(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') b
    WHERE b.type = 'object' AND json_extract(new.blocks_json, b.fullkey || '.type') = 'image'
      AND json_type(new.blocks_json, b.fullkey || '.data.media_id') = 'text';
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, id, new.site_id FROM (
      SELECT CASE WHEN instr(rest, '/') > 0 AND (instr(rest, '.') = 0 OR instr(rest, '/') < instr(rest, '.'))
        THEN substr(rest, 1, instr(rest, '/') - 1) ELSE substr(rest, 1, instr(rest, '.') - 1) END AS id
      FROM (
        SELECT substr(u, instr(u, '/sites/' || new.site_id || '/') + length('/sites/' || new.site_id || '/')) AS rest
        FROM (
          SELECT json_extract(new.blocks_json, b.fullkey || '.data.file.url') AS u
          FROM json_each(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') b
          WHERE b.type = 'object' AND json_extract(new.blocks_json, b.fullkey || '.type') = 'image'
            AND json_type(new.blocks_json, b.fullkey || '.data.file.url') = 'text'
        )
        WHERE instr(u, '/sites/' || new.site_id || '/') > 0
      )
    )
    WHERE length(id) BETWEEN 26 AND 36;
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
  INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
    SELECT new.id, id, new.site_id FROM (
      SELECT CASE WHEN instr(rest, '/') > 0 AND (instr(rest, '.') = 0 OR instr(rest, '/') < instr(rest, '.'))
        THEN substr(rest, 1, instr(rest, '/') - 1) ELSE substr(rest, 1, instr(rest, '.') - 1) END AS id
      FROM (
        SELECT substr(u, instr(u, '/sites/' || new.site_id || '/') + length('/sites/' || new.site_id || '/')) AS rest
        FROM (
          SELECT json_extract(new.blocks_json, b.fullkey || '.data.file.url') AS u
          FROM json_each(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') b
          WHERE b.type = 'object' AND json_extract(new.blocks_json, b.fullkey || '.type') = 'image'
            AND json_type(new.blocks_json, b.fullkey || '.data.file.url') = 'text'
        )
        WHERE instr(u, '/sites/' || new.site_id || '/') > 0
      )
    )
    WHERE length(id) BETWEEN 26 AND 36;
END;

-- Existing posts' file.url references.
INSERT OR IGNORE INTO post_media_refs (post_id, media_id, site_id)
  SELECT post_id, id, site_id FROM (
    SELECT post_id, site_id,
      CASE WHEN instr(rest, '/') > 0 AND (instr(rest, '.') = 0 OR instr(rest, '/') < instr(rest, '.'))
        THEN substr(rest, 1, instr(rest, '/') - 1) ELSE substr(rest, 1, instr(rest, '.') - 1) END AS id
    FROM (
      SELECT post_id, site_id, substr(u, instr(u, '/sites/' || site_id || '/') + length('/sites/' || site_id || '/')) AS rest
      FROM (
        SELECT p.id AS post_id, p.site_id AS site_id, json_extract(p.blocks_json, b.fullkey || '.data.file.url') AS u
        FROM posts p, json_each(CASE WHEN json_valid(p.blocks_json) THEN p.blocks_json END, '$.blocks') b
        WHERE b.type = 'object' AND json_extract(p.blocks_json, b.fullkey || '.type') = 'image'
          AND json_type(p.blocks_json, b.fullkey || '.data.file.url') = 'text'
      )
      WHERE instr(u, '/sites/' || site_id || '/') > 0
    )
  )
  WHERE length(id) BETWEEN 26 AND 36;
