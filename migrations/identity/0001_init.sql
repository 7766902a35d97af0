-- Identity service: accounts, e-mail addresses, sessions, second factors, organizations, memberships.
-- Times are RFC 3339 UTC strings; ids are ULIDs.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('pending_verification', 'active', 'locked', 'disabled')),
  password_hash TEXT,
  display_name TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- A pending row may exist on several accounts (anti-squatting); only one account holds a verified row.
CREATE TABLE email_addresses (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address TEXT NOT NULL,
  verified_at TEXT,
  is_primary INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, address)
);
CREATE UNIQUE INDEX email_addresses_verified_address ON email_addresses (address) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX email_addresses_one_primary ON email_addresses (user_id) WHERE is_primary = 1;
CREATE INDEX email_addresses_address ON email_addresses (address);

CREATE TABLE platform_operators (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  capability TEXT NOT NULL CHECK (capability IN ('operator_read', 'operator_admin')),
  granted_at TEXT NOT NULL
);

-- One row per issued session. A refresh revokes the row (reason 'rotated', rotated_to = successor) and
-- inserts the successor in the same family; the family keeps the absolute expiry of the first login.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  family_id TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'staff',
  refresh_hash TEXT NOT NULL UNIQUE,
  trusted_device INTEGER NOT NULL DEFAULT 0,
  auth_method TEXT NOT NULL,
  ip TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  revoked_reason TEXT,
  rotated_to TEXT
);
CREATE INDEX sessions_user ON sessions (user_id, revoked_at);
CREATE INDEX sessions_family ON sessions (family_id);

CREATE TABLE totp_factors (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret_enc TEXT NOT NULL,
  confirmed_at TEXT,
  -- Highest 30-second step ever accepted: a code is accepted once (compare-and-set on this column).
  last_used_step INTEGER,
  created_at TEXT NOT NULL
);

CREATE TABLE recovery_codes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, code_hash)
);

CREATE TABLE phones (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  e164 TEXT NOT NULL,
  verified_at TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE passkeys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT,
  name TEXT,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- Open passkey registration ceremony: one per account (a new begin replaces the earlier one); finish
-- consumes it with DELETE ... RETURNING, so a challenge is used at most once.
CREATE TABLE passkey_ceremonies (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  challenge TEXT NOT NULL,
  expires_at TEXT NOT NULL
);

-- One-time codes sent by e-mail or SMS. Only a keyed hash of the code is stored. Consumption is a
-- compare-and-set (UPDATE ... WHERE used_at IS NULL AND attempts < max_attempts AND expires_at > now).
CREATE TABLE otp_codes (
  id TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  target TEXT NOT NULL,
  user_id TEXT,
  context TEXT,
  code_hash TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX otp_codes_target ON otp_codes (purpose, target, used_at);
CREATE INDEX otp_codes_user ON otp_codes (user_id, purpose);

-- Development outbox: what the outbox Mailer/SmsSender "sent" (only written when DEV_OUTBOX is on).
CREATE TABLE outbox_messages (
  id TEXT PRIMARY KEY,
  to_address TEXT NOT NULL,
  channel TEXT NOT NULL,
  purpose TEXT NOT NULL,
  code TEXT,
  link TEXT,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX outbox_messages_to ON outbox_messages (to_address, id);

CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  owner_user_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- Roles: presets have org_id NULL; organizations add custom roles addressed by slug.
CREATE TABLE roles (
  id TEXT PRIMARY KEY,
  org_id TEXT,
  scope TEXT NOT NULL CHECK (scope IN ('org', 'site')),
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  is_system INTEGER NOT NULL DEFAULT 0,
  permissions TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX roles_slug ON roles (COALESCE(org_id, ''), scope, slug);

INSERT INTO roles (id, org_id, scope, slug, name, is_system, permissions, created_at) VALUES
  ('preset_org_owner', NULL, 'org', 'org_owner', 'Owner', 1, '["members:manage"]', '2026-01-01T00:00:00.000Z'),
  ('preset_org_admin', NULL, 'org', 'org_admin', 'Admin', 0, '["members:manage"]', '2026-01-01T00:00:00.000Z'),
  ('preset_org_member', NULL, 'org', 'org_member', 'Member', 0, '[]', '2026-01-01T00:00:00.000Z'),
  ('preset_site_owner', NULL, 'site', 'site_owner', 'Site owner', 1, '[]', '2026-01-01T00:00:00.000Z'),
  ('preset_site_editor', NULL, 'site', 'site_editor', 'Editor', 0, '[]', '2026-01-01T00:00:00.000Z'),
  ('preset_site_author', NULL, 'site', 'site_author', 'Author', 0, '[]', '2026-01-01T00:00:00.000Z'),
  ('preset_site_contributor', NULL, 'site', 'site_contributor', 'Contributor', 0, '[]', '2026-01-01T00:00:00.000Z');

CREATE TABLE org_memberships (
  org_id TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_memberships_user ON org_memberships (user_id);

CREATE TABLE site_memberships (
  site_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  org_id TEXT,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, user_id)
);
CREATE INDEX site_memberships_user ON site_memberships (user_id);

-- Invitations (scope org or site). Only the SHA-256 of the token is stored; the token is only e-mailed.
CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  site_id TEXT,
  scope TEXT NOT NULL CHECK (scope IN ('org', 'site')),
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT
);
CREATE INDEX invitations_org ON invitations (org_id, accepted_at, revoked_at);
CREATE INDEX invitations_site ON invitations (site_id);

-- Site transfers and shares between organizations. Status: pending, accepted, rejected, cancelled,
-- expired (a pending row past expires_at is expired even before the hourly sweep labels it).
CREATE TABLE transfers (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  from_org_id TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  to_org_id TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode TEXT NOT NULL CHECK (mode IN ('transfer', 'share')),
  share_role TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected', 'cancelled', 'expired')),
  created_by TEXT NOT NULL,
  decided_by TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT
);
CREATE INDEX transfers_to ON transfers (to_org_id, status);
CREATE INDEX transfers_from ON transfers (from_org_id, status);
-- One pending transfer per site at a time.
CREATE UNIQUE INDEX transfers_one_pending ON transfers (site_id) WHERE status = 'pending';
