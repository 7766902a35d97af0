-- Sites registry. Slug and hosts stay reserved while a site is soft-deleted (reversible); only the
-- operator purge (row removal) releases them.
CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  primary_domain TEXT,
  aliases TEXT NOT NULL DEFAULT '[]',
  default_language TEXT NOT NULL DEFAULT 'en',
  languages TEXT NOT NULL DEFAULT '["en"]',
  theme TEXT,
  status TEXT NOT NULL DEFAULT 'active',
  status_reason TEXT,
  status_changed_at TEXT,
  previous_status TEXT,
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sites_org_status ON sites (org_id, status);

-- Every custom host (primary domain or alias) of every site: the primary key makes a host belong to one
-- site at most, so DOMAIN_TAKEN is decided by the database, also under concurrent writes.
CREATE TABLE site_hosts (
  host TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('primary', 'alias'))
);
CREATE INDEX site_hosts_site ON site_hosts (site_id);

-- Per-organization plan: how many licensed (non-deleted) sites it may hold. No row = DEFAULT_SITE_LIMIT.
CREATE TABLE org_plans (
  org_id TEXT PRIMARY KEY,
  plan TEXT NOT NULL DEFAULT 'default',
  site_limit INTEGER NOT NULL CHECK (site_limit >= 0),
  updated_at TEXT NOT NULL
);

-- Sites shared with another organization by an accepted transfer in mode "share".
CREATE TABLE site_shares (
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, org_id)
);
CREATE INDEX site_shares_org ON site_shares (org_id);
