-- Page-view analytics of each site (collected by POST /v1/analytics/collect, read by the analytics and
-- export routes). Only daily rollups are kept for good; the per-day visitor ids and the day's salt are
-- the only raw data, and the hourly cron deletes them once their UTC day is over.

-- One random salt per UTC day. Visitor ids are SHA-256(salt, site, IP, user agent): once the salt is
-- deleted nobody (operators included) can recompute which IP and browser an old id belonged to.
CREATE TABLE analytics_salts (
  day TEXT PRIMARY KEY,
  salt TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- The day's visitor ids, one row per (site, day, visitor, path): what makes the daily unique counts
-- exact. Never an IP or a user agent.
CREATE TABLE analytics_visitors (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,
  visitor_id TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (site_id, day, visitor_id, path)
);
CREATE INDEX analytics_visitors_day ON analytics_visitors (day);

-- Daily rollups (UTC days): the site's human views and unique visitors, and bot hits apart.
CREATE TABLE analytics_daily (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  visitors INTEGER NOT NULL DEFAULT 0,
  bot_views INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day)
);

-- Per path and day: human views and unique visitors of the path.
CREATE TABLE analytics_paths_daily (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,
  path TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  visitors INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, path)
);

-- Per referring host and day: human views that arrived from another site (host only, never the URL).
CREATE TABLE analytics_referrers_daily (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,
  referrer_host TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, referrer_host)
);
