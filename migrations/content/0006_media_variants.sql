-- Media variants (Cloudflare Images binding): the original's pixel size, and a definitive `failed`
-- state with its reason. SQLite cannot change a CHECK constraint in place, so `media` is rebuilt with
-- 'failed' allowed (same columns, same indexes, rows copied as they are).
CREATE TABLE media_rebuilt (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  r2_key TEXT NOT NULL UNIQUE,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed', 'deleted')),
  source_url TEXT,
  purpose TEXT,
  folder_id TEXT,
  created_at TEXT NOT NULL,
  deleted_at TEXT,
  variants_json TEXT NOT NULL DEFAULT '[]',
  width INTEGER,
  height INTEGER,
  failure_reason TEXT
);
INSERT INTO media_rebuilt (id, site_id, r2_key, content_type, size_bytes, status, source_url, purpose, folder_id,
  created_at, deleted_at, variants_json)
  SELECT id, site_id, r2_key, content_type, size_bytes, status, source_url, purpose, folder_id, created_at,
    deleted_at, variants_json FROM media;
DROP TABLE media;
ALTER TABLE media_rebuilt RENAME TO media;
CREATE INDEX media_site_created ON media (site_id, created_at DESC);
CREATE INDEX media_site_folder ON media (site_id, folder_id, created_at DESC);
