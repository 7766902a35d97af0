-- Issue 18, item 5: the account's security events (beyond the spec). Append-only: rows are written in
-- the batch of the change they record and leave only by the retention cleanup (or with their account
-- or organization). Each row has exactly one subject: an account (its owner reads it at
-- GET /auth/events) or an organization (its admins read it at GET /auth/orgs/{org_id}/events); a
-- member's sign-ins, factors and addresses are account events, never an organization's.
CREATE TABLE security_events (
  id TEXT PRIMARY KEY,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  method TEXT,
  actor_user_id TEXT,
  target TEXT,
  detail TEXT,
  ip_prefix TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  CHECK ((user_id IS NULL) <> (org_id IS NULL))
);
CREATE INDEX security_events_user ON security_events (user_id, id);
CREATE INDEX security_events_org ON security_events (org_id, id);
CREATE INDEX security_events_created ON security_events (created_at);
CREATE TRIGGER security_events_append_only BEFORE UPDATE ON security_events
BEGIN
  SELECT RAISE(ABORT, 'security_events is append-only');
END;
