-- Optimistic concurrency for post edits: every UPDATE of a post checks and bumps its revision, so two
-- concurrent partial edits never overwrite each other's fields (the loser re-reads and re-applies).
ALTER TABLE posts ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

-- Transactional outbox of a post change's side effects (unpublication event, cache purge, IndexNow):
-- written in the same D1 batch as the change, delivered right after it, deleted once delivered; the
-- cron re-delivers rows left behind by a failed delivery. So a change never loses its effects.
CREATE TABLE post_effects (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  post_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('event', 'cache_purge', 'indexnow')),
  payload_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX post_effects_created ON post_effects (created_at);
