-- Forms and leads (issue 10).

-- The forms app's switch per site, copied from the site projection (sites' settings.applets.forms.enabled,
-- pushed by syncSite / site-sync). Off, or no row: the forms area is gone (admin, anonymous routes and lead
-- reads answer 404) but nothing is deleted. An older push never overwrites a newer one (updated_at).
CREATE TABLE forms_app_state (
  site_id TEXT PRIMARY KEY,
  enabled INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);

-- A site's forms, defined by site staff; `fields_json` is the ordered list of declared fields (also the
-- CSV columns of the leads export). Deleting a form is soft: its leads stay readable.
CREATE TABLE forms (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  name TEXT NOT NULL,
  fields_json TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX forms_site ON forms (site_id, created_at);

-- Submissions (personal data). Spam is kept and flagged, never dropped; `content_hash` finds duplicates.
CREATE TABLE leads (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  form_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('clean', 'spam')),
  spam_reasons_json TEXT NOT NULL DEFAULT '[]',
  fields_json TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  page_url TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX leads_site_time ON leads (site_id, created_at, id);
CREATE INDEX leads_site_status_time ON leads (site_id, status, created_at, id);
CREATE INDEX leads_form_time ON leads (form_id, created_at, id);
CREATE INDEX leads_form_duplicate ON leads (form_id, content_hash, created_at);

-- Who read what, when: one row per lead read or export, written before the data leaves (a failed write
-- fails the read). Shaped for a general audit log: actor (an API key and the user who created it),
-- action, outcome, the resources touched and the request's filters.
CREATE TABLE audit_events (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_user_id TEXT,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_ids_json TEXT NOT NULL DEFAULT '[]',
  details_json TEXT NOT NULL DEFAULT '{}',
  item_count INTEGER NOT NULL DEFAULT 0,
  request_id TEXT,
  client_ip TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX audit_events_site_time ON audit_events (site_id, created_at, id);
