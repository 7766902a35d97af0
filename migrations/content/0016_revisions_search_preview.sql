-- Issue 22 part B: post revisions, preview secrets and full-text search over the body.

-- Every change of a post's title, summary, body or SEO document (seo_json, which also holds its taxonomy)
-- keeps a revision: the post's content as that change left it, numbered by the post's `revision` counter
-- (the number its ETag "rev-N" carries). Written by triggers, so the revision is part of the very
-- statement that changed the post (whatever the path: PATCH, SEO PATCH, import, restore, legal pages).
-- Only the 50 newest revisions of a post are kept (the trigger drops older ones).
CREATE TABLE post_revisions (
  post_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  site_id TEXT NOT NULL,
  title TEXT NOT NULL,
  summary TEXT,
  blocks_json TEXT,
  seo_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (post_id, revision)
);
CREATE INDEX post_revisions_site ON post_revisions (site_id, post_id);

CREATE TRIGGER post_revisions_insert AFTER INSERT ON posts BEGIN
  INSERT OR REPLACE INTO post_revisions (post_id, revision, site_id, title, summary, blocks_json, seo_json, created_at)
    VALUES (new.id, new.revision, new.site_id, new.title, new.summary, new.blocks_json, new.seo_json, new.updated_at);
END;
CREATE TRIGGER post_revisions_update AFTER UPDATE OF title, summary, blocks_json, seo_json ON posts
  WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.blocks_json IS NOT new.blocks_json
    OR old.seo_json IS NOT new.seo_json
BEGIN
  INSERT OR REPLACE INTO post_revisions (post_id, revision, site_id, title, summary, blocks_json, seo_json, created_at)
    VALUES (new.id, new.revision, new.site_id, new.title, new.summary, new.blocks_json, new.seo_json, new.updated_at);
  DELETE FROM post_revisions WHERE post_id = new.id AND revision <= (
    SELECT revision FROM post_revisions WHERE post_id = new.id ORDER BY revision DESC LIMIT 1 OFFSET 50);
END;
CREATE TRIGGER post_revisions_delete AFTER DELETE ON posts BEGIN
  DELETE FROM post_revisions WHERE post_id = old.id;
END;

-- Existing posts start their history with their current content.
INSERT OR IGNORE INTO post_revisions (post_id, revision, site_id, title, summary, blocks_json, seo_json, created_at)
  SELECT id, revision, site_id, title, summary, blocks_json, seo_json, updated_at FROM posts;

-- The per-post secret that signs preview links; rotating it (a new random value) ends every link.
CREATE TABLE post_preview_secrets (
  post_id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  secret TEXT NOT NULL,
  rotated_at TEXT NOT NULL
);
CREATE TRIGGER post_preview_secrets_delete AFTER DELETE ON posts BEGIN
  DELETE FROM post_preview_secrets WHERE post_id = old.id;
END;

-- Search (`GET /v1/search`): title, summary and the body's text (the string leaves of the Editor.js
-- blocks that hold prose: text, caption, content, title, message, code, list items), kept in sync by
-- triggers; rowid = the post's rowid. Ranked by bm25 with the title weighing most.
CREATE VIRTUAL TABLE posts_search USING fts5 (title, summary, body, tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
  INSERT INTO posts_search (rowid, title, summary, body) VALUES (new.rowid, new.title, coalesce(new.summary, ''),
    coalesce((SELECT group_concat(t.value, ' ')
      FROM json_tree(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') t
      WHERE t.type = 'text' AND (t.key IN ('text', 'caption', 'content', 'title', 'message', 'code')
        OR (typeof(t.key) = 'integer' AND t.path LIKE '%.items%'))), ''));
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF title, summary, blocks_json ON posts
  WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary OR old.blocks_json IS NOT new.blocks_json
BEGIN
  DELETE FROM posts_search WHERE rowid = old.rowid;
  INSERT INTO posts_search (rowid, title, summary, body) VALUES (new.rowid, new.title, coalesce(new.summary, ''),
    coalesce((SELECT group_concat(t.value, ' ')
      FROM json_tree(CASE WHEN json_valid(new.blocks_json) THEN new.blocks_json END, '$.blocks') t
      WHERE t.type = 'text' AND (t.key IN ('text', 'caption', 'content', 'title', 'message', 'code')
        OR (typeof(t.key) = 'integer' AND t.path LIKE '%.items%'))), ''));
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
  DELETE FROM posts_search WHERE rowid = old.rowid;
END;

INSERT INTO posts_search (rowid, title, summary, body)
  SELECT p.rowid, p.title, coalesce(p.summary, ''),
    coalesce((SELECT group_concat(t.value, ' ')
      FROM json_tree(CASE WHEN json_valid(p.blocks_json) THEN p.blocks_json END, '$.blocks') t
      WHERE t.type = 'text' AND (t.key IN ('text', 'caption', 'content', 'title', 'message', 'code')
        OR (typeof(t.key) = 'integer' AND t.path LIKE '%.items%'))), '')
  FROM posts p;
