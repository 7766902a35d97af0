-- Issue 34: who made what. A post records who created it and who last changed it (the actor's kind, `key`
-- or `person`; its id, the API key's id or the person's user id; and its name then, the key's name or the
-- person's display name), and each revision who made it (the post's last changer as that change left it).
-- And `review_requested`: a contributor's draft marked ready for an editor (cleared when published).

ALTER TABLE posts ADD COLUMN created_by_kind TEXT;
ALTER TABLE posts ADD COLUMN created_by_id TEXT;
ALTER TABLE posts ADD COLUMN created_by_name TEXT;
ALTER TABLE posts ADD COLUMN updated_by_kind TEXT;
ALTER TABLE posts ADD COLUMN updated_by_id TEXT;
ALTER TABLE posts ADD COLUMN updated_by_name TEXT;
ALTER TABLE posts ADD COLUMN review_requested INTEGER NOT NULL DEFAULT 0;
-- The dashboard list's `review_requested=true` filter: the site's drafts waiting for an editor.
CREATE INDEX posts_review_requested ON posts (site_id, id) WHERE review_requested = 1;

ALTER TABLE post_revisions ADD COLUMN made_by_kind TEXT;
ALTER TABLE post_revisions ADD COLUMN made_by_id TEXT;
ALTER TABLE post_revisions ADD COLUMN made_by_name TEXT;

-- An erased account's name leaves who-made-what too (authors/account-deleted.ts): the person's rows by id.
CREATE INDEX posts_created_by_person ON posts (created_by_id) WHERE created_by_kind = 'person';
CREATE INDEX posts_updated_by_person ON posts (updated_by_id) WHERE updated_by_kind = 'person';
CREATE INDEX post_revisions_made_by_person ON post_revisions (made_by_id) WHERE made_by_kind = 'person';

-- Posts written before: created by the key that made them (by its name), or by the person who generated a
-- legal page (no name recorded then). Who last changed them is not known (null).
UPDATE posts SET created_by_kind = 'key', created_by_id = created_by_key_id,
    created_by_name = (SELECT k.name FROM api_keys k WHERE k.id = posts.created_by_key_id)
  WHERE created_by_key_id IS NOT NULL;
UPDATE posts SET created_by_kind = 'person', created_by_id = author_user_id
  WHERE created_by_key_id IS NULL AND author_user_id IS NOT NULL;

-- A revision is made by the post's last changer as the change that wrote it left the row (every write
-- sets updated_by_* in the same statement as the content it changes).
DROP TRIGGER post_revisions_insert;
DROP TRIGGER post_revisions_update;
CREATE TRIGGER post_revisions_insert AFTER INSERT ON posts BEGIN
  INSERT OR REPLACE INTO post_revisions (post_id, revision, site_id, title, summary, blocks_json, seo_json, created_at,
      made_by_kind, made_by_id, made_by_name)
    VALUES (new.id, new.revision, new.site_id, new.title, new.summary, new.blocks_json, new.seo_json, new.updated_at,
      new.updated_by_kind, new.updated_by_id, new.updated_by_name);
END;
CREATE TRIGGER post_revisions_update AFTER UPDATE OF title, summary, blocks_json, seo_json ON posts
  WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.blocks_json IS NOT new.blocks_json
    OR old.seo_json IS NOT new.seo_json
BEGIN
  INSERT OR REPLACE INTO post_revisions (post_id, revision, site_id, title, summary, blocks_json, seo_json, created_at,
      made_by_kind, made_by_id, made_by_name)
    VALUES (new.id, new.revision, new.site_id, new.title, new.summary, new.blocks_json, new.seo_json, new.updated_at,
      new.updated_by_kind, new.updated_by_id, new.updated_by_name);
  DELETE FROM post_revisions WHERE post_id = new.id AND revision <= (
    SELECT revision FROM post_revisions WHERE post_id = new.id ORDER BY revision DESC LIMIT 1 OFFSET 50);
END;
