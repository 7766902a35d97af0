-- The operator's moves of a site's content between content groups (issue 38) join the audit trail of the
-- operator console: `group_move` when a move starts, `group_move_rollback` when an operator rolls one back.
-- SQLite cannot change a CHECK constraint, so the table is rebuilt with the wider list (same columns, rows
-- and index). For these actions from_status and to_status are the site's status (unchanged) and `reason`
-- names the groups ("content group g000 -> g001").
CREATE TABLE site_audit_next (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL CHECK (action IN ('deactivate', 'archive', 'restore', 'purge', 'group_move', 'group_move_rollback')),
  site_id TEXT NOT NULL,
  site_slug TEXT NOT NULL,
  org_id TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT,
  hosts_json TEXT NOT NULL,
  actor_user_id TEXT,
  actor_capability TEXT NOT NULL,
  reason TEXT,
  created_at TEXT NOT NULL
);
INSERT INTO site_audit_next SELECT id, action, site_id, site_slug, org_id, from_status, to_status, hosts_json,
  actor_user_id, actor_capability, reason, created_at FROM site_audit;
DROP TABLE site_audit;
ALTER TABLE site_audit_next RENAME TO site_audit;
CREATE INDEX site_audit_site ON site_audit (site_id, created_at);
