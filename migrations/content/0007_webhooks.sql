-- Signed webhooks (Standard Webhooks) registered per site by its staff, and the delivery log.
-- The signing secret is stored only encrypted (AES-256-GCM under the WEBHOOK_SECRET_KEY Worker secret,
-- bound to the webhook's id): it must be readable to sign, so it cannot be a hash.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events_json TEXT NOT NULL,
  description TEXT,
  secret_encrypted TEXT NOT NULL,
  created_by TEXT,
  created_at TEXT NOT NULL,
  secret_rotated_at TEXT
);
CREATE INDEX webhooks_site ON webhooks (site_id, created_at);

-- One row per (event, webhook): the fan-out writes it, every attempt updates it (attempts_json is the
-- per-attempt log). `body` is fixed at fan-out so every retry sends the same bytes.
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  site_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  attempts_json TEXT NOT NULL DEFAULT '[]',
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at TEXT,
  locked_until TEXT,
  created_at TEXT NOT NULL,
  last_attempt_at TEXT,
  delivered_at TEXT,
  failed_at TEXT
);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

-- The cron finds scheduled posts whose time has come (to store them as published and announce them).
CREATE INDEX posts_scheduled_due ON posts (published_at) WHERE status = 'scheduled';
