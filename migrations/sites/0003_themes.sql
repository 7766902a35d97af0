-- Themes (issue 12): platform themes (every gallery), organization themes (their organization's sites'
-- galleries). `package_json` is the theme package: the visual allowlist of settings, content removed.
-- A slug is unique per scope owner (the platform, or one organization), decided by this unique index, so
-- THEME_SLUG_TAKEN holds under concurrent saves. Scope 'backup' is reserved for look backups: no route
-- serves such a row (the per-site undo stack lives in theme_snapshots).
CREATE TABLE themes (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('platform', 'org', 'backup')),
  org_id TEXT CHECK (scope <> 'org' OR org_id IS NOT NULL),
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  description TEXT,
  preview_url TEXT,
  package_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX themes_owner_slug ON themes (scope, COALESCE(org_id, ''), slug);
CREATE INDEX themes_org ON themes (org_id, scope);

-- The per-site undo stack: each apply keeps the site's look before it (every allowlist path, absence
-- included); at most 10 per site, the oldest dropped in the batch that adds the 11th. `seq` orders a
-- site's snapshots (the latest is undone first).
CREATE TABLE theme_snapshots (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  theme_id TEXT NOT NULL,
  look_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX theme_snapshots_site_seq ON theme_snapshots (site_id, seq);
