-- Content service: its own projection of sites, API keys, posts (with FTS5 over title + summary),
-- post types, media, idempotency records and recorded outbound effects (dev adapters).

CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  default_language TEXT NOT NULL,
  status TEXT NOT NULL,
  primary_domain TEXT,
  updated_at TEXT NOT NULL,
  synced_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('secret', 'public')),
  -- HMAC-SHA-256(API_KEY_PEPPER, key), hex; the key itself is never stored.
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  scopes_json TEXT NOT NULL,
  allowed_origins_json TEXT NOT NULL DEFAULT '[]',
  -- Authorship context: the staff user who created the key (NULL on legacy keys -> 422 on writes).
  created_by TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  revoked_by TEXT
);
CREATE INDEX api_keys_site ON api_keys (site_id, created_at);

CREATE TABLE post_types (
  site_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  is_public INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, slug)
);

CREATE TABLE posts (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  language TEXT NOT NULL,
  post_type TEXT NOT NULL DEFAULT 'post',
  title TEXT NOT NULL,
  summary TEXT,
  -- The Editor.js document exactly as received (JSON text); NULL when absent.
  blocks_json TEXT,
  status TEXT NOT NULL CHECK (status IN ('draft', 'scheduled', 'published', 'archived', 'deleted')),
  access TEXT NOT NULL DEFAULT 'public' CHECK (access IN ('public', 'restricted')),
  -- RFC 3339 UTC with milliseconds (Date#toISOString), so text order is time order.
  published_at TEXT,
  author_slug TEXT,
  author_user_id TEXT,
  featured_image_id TEXT,
  -- SEO document; also holds category_slugs and tag_slugs (the spec's seo_jsonb).
  seo_json TEXT NOT NULL DEFAULT '{}',
  created_by_key_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (site_id, slug, language)
);
CREATE INDEX posts_public_feed ON posts (site_id, published_at DESC, id DESC);
CREATE INDEX posts_site_updated ON posts (site_id, updated_at);
CREATE INDEX posts_site_id_desc ON posts (site_id, id DESC);

CREATE VIRTUAL TABLE posts_fts USING fts5 (title, summary, content = 'posts', content_rowid = 'rowid');
CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
  INSERT INTO posts_fts (rowid, title, summary) VALUES (new.rowid, new.title, coalesce(new.summary, ''));
END;
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
  INSERT INTO posts_fts (posts_fts, rowid, title, summary) VALUES ('delete', old.rowid, old.title, coalesce(old.summary, ''));
END;
CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, summary ON posts BEGIN
  INSERT INTO posts_fts (posts_fts, rowid, title, summary) VALUES ('delete', old.rowid, old.title, coalesce(old.summary, ''));
  INSERT INTO posts_fts (rowid, title, summary) VALUES (new.rowid, new.title, coalesce(new.summary, ''));
END;

CREATE TABLE media (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  r2_key TEXT NOT NULL UNIQUE,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'deleted')),
  source_url TEXT,
  purpose TEXT,
  folder_id TEXT,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX media_site_created ON media (site_id, created_at DESC);

-- Finished idempotent POST responses (durable copy of the KV cache), purged by the cron after 24 h.
CREATE TABLE idempotency_records (
  key_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  response_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (key_id, idempotency_key)
);
CREATE INDEX idempotency_expiry ON idempotency_records (expires_at);

-- Development adapters of outbound effects (IndexNow notification, cache purge) and consumed events.
CREATE TABLE outbound_effects (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  site_id TEXT NOT NULL,
  subject_id TEXT,
  payload_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX outbound_effects_site ON outbound_effects (site_id, kind, created_at);
