-- Issue 19: accepting a `transfer` ends the site-scope memberships of people outside the destination
-- organization in the acceptance's own batch. They are kept here (keyed by the transfer) only so that an
-- acceptance the site registry refuses (the transfer reopens) can put them back, nothing half-done.
CREATE TABLE transfer_ended_site_memberships (
  transfer_id TEXT NOT NULL,
  site_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  org_id TEXT,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (transfer_id, user_id)
);
