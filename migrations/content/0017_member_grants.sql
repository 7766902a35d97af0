-- Issue 26: a person's grant on a site ended (removed, role changed, left, erased: identity tells content
-- through sites). Their keys are revoked and their webhooks deleted by content's `endMemberGrants`; this
-- row records the ending so that for 30 s after content learned it (the gateway's membership cache) the
-- person's edge headers no longer administer the site's keys, webhooks and forms. Rows older than a day
-- are purged by the next ending.
CREATE TABLE ended_member_grants (
  user_id TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('site', 'org')),
  org_id TEXT,
  site_id TEXT,
  except_site_ids_json TEXT NOT NULL DEFAULT '[]',
  ended_at TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE INDEX ended_member_grants_user ON ended_member_grants (user_id, recorded_at);
