-- Domain ownership proof (beyond the spec; docs/decisions.md, Sites). A custom host held by a site is
-- "unverified" until the TXT record `_platform-verify.<host>` carries the site's token (derived from the
-- site id and the host, so nothing is stored for a refused claim); `verified_at` records when it was seen.
ALTER TABLE site_hosts ADD COLUMN verified_at TEXT;

-- A host a site held unverified and lost to another site's verified claim: the loser's health shows
-- `domain_lost` from this row (its own record no longer names the host). Kept 30 days.
CREATE TABLE domain_losses (
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  host TEXT NOT NULL,
  taken_by_site_id TEXT NOT NULL,
  lost_at TEXT NOT NULL,
  PRIMARY KEY (site_id, host)
);
CREATE INDEX domain_losses_lost_at ON domain_losses (lost_at);
