-- Authors as integrators manage them (issue 22): a persona has a bio and an avatar (a media asset of the
-- site), and can be renamed. A key's persona is found by the authorship context it was made from
-- (context_name: the key's byline when it was made), no longer by its display name, so renaming a
-- persona never detaches it from its key. Authors created through the API have a user id of their own
-- ('author:' + id): no key's context ever names them.
ALTER TABLE author_personas ADD COLUMN bio TEXT;
ALTER TABLE author_personas ADD COLUMN avatar_media_id TEXT;
ALTER TABLE author_personas ADD COLUMN context_name TEXT;
ALTER TABLE author_personas ADD COLUMN updated_at TEXT;
UPDATE author_personas SET context_name = display_name, updated_at = created_at;
DROP INDEX author_personas_context;
CREATE UNIQUE INDEX author_personas_context ON author_personas (site_id, user_id, context_name);

-- The author list is a public read cached by the site's content version: author writes move it too.
CREATE TRIGGER author_personas_content_version_insert AFTER INSERT ON author_personas BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
CREATE TRIGGER author_personas_content_version_update AFTER UPDATE ON author_personas BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
