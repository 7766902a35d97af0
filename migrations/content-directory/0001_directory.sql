-- The content directory (docs/decisions/site-groups.md, issue 38): which group database holds each site's
-- content, and what finds a site's group when a request arrives without a site id (an API key's hash, a
-- site's slug). Its own D1 database (`content-directory`); the group databases (`content-g000`, …) run the
-- migrations of migrations/content.

-- One row per site content knows: its group, the routing version (moves by one on every switch), and while
-- a move copies, the group it goes to (the site's writes answer 503 meanwhile).
CREATE TABLE site_groups (
  site_id TEXT PRIMARY KEY,
  slug TEXT NOT NULL,
  group_name TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1,
  moving_to TEXT,
  placed_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX site_groups_group ON site_groups (group_name);
CREATE INDEX site_groups_slug ON site_groups (slug, updated_at);

-- An API key's site, by the key's keyed hash: a key belongs to one site for its whole life, so an isolate
-- may keep this answer as long as it likes. Written before the key's row in its group.
CREATE TABLE key_sites (
  key_hash TEXT PRIMARY KEY,
  site_id TEXT NOT NULL
);
CREATE INDEX key_sites_site ON key_sites (site_id);
