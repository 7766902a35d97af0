-- Per-site content version (issue 14, the read path): public post answers are cached at the edge under
-- a key that carries it, so any change of what a public read shows must move it. Bumped by SQL triggers
-- on every write of posts, media (insert, status, key, delete) and post types, whatever the write path
-- (API, import, cron publication, RPC, queue consumers, transfer restamps), and by every projection push
-- that changes the site row (site/store.ts upsertSite). Read in the key lookup's join with the site.
ALTER TABLE sites ADD COLUMN content_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER posts_content_version_insert AFTER INSERT ON posts BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
CREATE TRIGGER posts_content_version_update AFTER UPDATE ON posts BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id IN (old.site_id, new.site_id);
END;
CREATE TRIGGER posts_content_version_delete AFTER DELETE ON posts BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = old.site_id;
END;

CREATE TRIGGER media_content_version_insert AFTER INSERT ON media BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
CREATE TRIGGER media_content_version_update AFTER UPDATE OF status, r2_key, site_id ON media BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id IN (old.site_id, new.site_id);
END;
CREATE TRIGGER media_content_version_delete AFTER DELETE ON media BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = old.site_id;
END;

CREATE TRIGGER post_types_content_version_insert AFTER INSERT ON post_types BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
CREATE TRIGGER post_types_content_version_update AFTER UPDATE ON post_types BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id IN (old.site_id, new.site_id);
END;
CREATE TRIGGER post_types_content_version_delete AFTER DELETE ON post_types BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = old.site_id;
END;
