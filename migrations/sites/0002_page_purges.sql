-- Transactional outbox of full-page cache purges (by host): a site change writes a row, the purge is
-- delivered at once and the row deleted on success; a failed purge keeps its row with the attempt count,
-- the error and the next attempt's time, and the cron retries due rows until it gives up (kept, logged).
CREATE TABLE page_purges (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  hosts_json TEXT NOT NULL,
  reason TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at TEXT NOT NULL,
  gave_up_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX page_purges_due ON page_purges (gave_up_at, next_attempt_at);

-- Development and tests (DEV_OUTBOX=true): purges are recorded here instead of being sent.
CREATE TABLE outbound_effects (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  site_id TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX outbound_effects_site ON outbound_effects (site_id, kind, created_at);
