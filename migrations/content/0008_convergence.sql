-- Issue 11: effects delivered with retries, the per-site post type catalogue, and content stamped for its
-- organization (restamped by the site-transferred consumer after a transfer).

-- Outbox rows stay until delivered: when the next attempt is due, why the last one failed, and when the
-- cron gave up (kept for inspection and counted by /metrics, never retried again).
ALTER TABLE post_effects ADD COLUMN next_attempt_at TEXT;
ALTER TABLE post_effects ADD COLUMN last_error TEXT;
ALTER TABLE post_effects ADD COLUMN gave_up_at TEXT;

-- A post type removed (its applet uninstalled) is disabled, never deleted: its posts are kept.
ALTER TABLE post_types ADD COLUMN disabled_at TEXT;

-- When the projection's owner organization last changed (the sites push that changed it).
ALTER TABLE sites ADD COLUMN org_since TEXT;
UPDATE sites SET org_since = updated_at;

-- The organization each piece of content is stamped for.
ALTER TABLE posts ADD COLUMN org_id TEXT;
ALTER TABLE media ADD COLUMN org_id TEXT;
ALTER TABLE api_keys ADD COLUMN org_id TEXT;

-- The newest ownership transfer content has applied per site (from the site-transferred queue).
CREATE TABLE site_transfers (
  site_id TEXT PRIMARY KEY,
  transfer_id TEXT NOT NULL,
  from_org_id TEXT NOT NULL,
  to_org_id TEXT NOT NULL,
  transferred_at TEXT NOT NULL,
  applied_at TEXT NOT NULL
);

-- Backfill, then stamp every new row at insert: the newest owner content knows of (the applied transfer
-- when it is newer than the projection's owner, else the projection's). In SQL so that no insert path
-- can forget it.
UPDATE posts SET org_id = (SELECT org_id FROM sites WHERE sites.id = posts.site_id);
UPDATE media SET org_id = (SELECT org_id FROM sites WHERE sites.id = media.site_id);
UPDATE api_keys SET org_id = (SELECT org_id FROM sites WHERE sites.id = api_keys.site_id);

CREATE VIEW site_owner AS
  SELECT s.id AS site_id,
    CASE WHEN t.transferred_at > s.org_since THEN t.to_org_id ELSE s.org_id END AS org_id,
    CASE WHEN t.transferred_at > s.org_since THEN t.transferred_at ELSE s.org_since END AS since
  FROM sites s LEFT JOIN site_transfers t ON t.site_id = s.id;

CREATE TRIGGER posts_stamp_org AFTER INSERT ON posts WHEN new.org_id IS NULL BEGIN
  UPDATE posts SET org_id = (SELECT org_id FROM site_owner WHERE site_id = new.site_id) WHERE id = new.id;
END;
CREATE TRIGGER media_stamp_org AFTER INSERT ON media WHEN new.org_id IS NULL BEGIN
  UPDATE media SET org_id = (SELECT org_id FROM site_owner WHERE site_id = new.site_id) WHERE id = new.id;
END;
CREATE TRIGGER api_keys_stamp_org AFTER INSERT ON api_keys WHEN new.org_id IS NULL BEGIN
  UPDATE api_keys SET org_id = (SELECT org_id FROM site_owner WHERE site_id = new.site_id) WHERE id = new.id;
END;
