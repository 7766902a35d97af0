-- Single-use form tokens (issue 19): the random id of every form token a submission carried, kept for the
-- token's lifetime (24 h and the minute of clock skew), so a second submission with the same token is
-- flagged `reused_token`. Written in the submission's own batch (the lead insert reads it first; D1 runs
-- one write transaction at a time, so of racing submissions exactly one sees no earlier use). Each
-- submission also deletes a few expired ids, so the table holds about one day of submissions.
CREATE TABLE form_token_uses (
  token_id TEXT PRIMARY KEY,
  form_id TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX form_token_uses_expiry ON form_token_uses (expires_at);
