-- Issue 24 §2: leaving. A deletion request ends every session and disables the account (users.status
-- 'disabled') for a grace period; until `erase_after` the owner may cancel with an e-mailed code. The
-- hourly cron then erases the account's personal data in one batch (erased_at set by its first statement,
-- a compare-and-set: the erasure runs once) and tells content (content_notified_at, retried until sent).
-- The users row stays as a tombstone without personal data: its id is the pseudonymous id the security
-- events and other services' records keep.
CREATE TABLE account_deletions (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  requested_at TEXT NOT NULL,
  erase_after TEXT NOT NULL,
  erased_at TEXT,
  content_notified_at TEXT
);
CREATE INDEX account_deletions_due ON account_deletions (erased_at, erase_after);
