-- Issue 26, item 2: the one-click undo of a change to an organization's single sign-on. Every set or change
-- of the configuration writes one row (in the change's own batch) whose token is mailed to every owner: it
-- puts back the configuration as it was before (`before_json`: the row and its domains; NULL when there
-- was none, then the undo removes single sign-on), once, within 7 days, and only while the configuration
-- is still the one that change wrote (`config_id` and `updated_at`): a later change has its own link.
CREATE TABLE sso_undos (
  token_hash TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  before_json TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  used_by TEXT
);
CREATE INDEX sso_undos_org ON sso_undos(org_id);
