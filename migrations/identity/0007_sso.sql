-- Issue 24 §1: organization single sign-on over OpenID Connect (src/identity/sso/).
-- One provider per organization; `config_id` names this configuration: SSO sessions record it and end
-- when it is replaced or removed. The client secret is AES-GCM ciphertext (sso/secret-box.ts).
CREATE TABLE org_sso (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  issuer TEXT NOT NULL,
  client_id TEXT NOT NULL,
  client_secret_sealed TEXT NOT NULL,
  enforced INTEGER NOT NULL DEFAULT 0,
  allow_passwords INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- E-mail domains an organization's provider vouches for. Only a domain proved by DNS TXT counts, and a
-- domain is proved for one organization at a time (the partial unique index).
CREATE TABLE sso_domains (
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  domain TEXT NOT NULL,
  verified_at TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, domain)
);
CREATE UNIQUE INDEX sso_domains_proved ON sso_domains(domain) WHERE verified_at IS NOT NULL;

-- An authorization request in flight: the state (hashed), PKCE verifier and nonce, bound to the browser
-- that started it (hash of its cookie); single use, 10 minutes.
CREATE TABLE sso_logins (
  state_hash TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  browser_hash TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);

-- The provider's subject linked to an account, per organization configuration.
CREATE TABLE sso_identities (
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, subject)
);
CREATE INDEX sso_identities_user ON sso_identities(user_id);

-- What a verified sign-in left to finish: registration of an unknown person from a vouched domain
-- (`kind` register) or the address proof that links an existing account (`kind` link). Token hashed;
-- single use; 15 minutes.
CREATE TABLE sso_pending (
  token_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  email TEXT NOT NULL,
  name TEXT,
  user_id TEXT,
  amr TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);

-- Sessions signed in through an organization's provider, by refresh family (rotation keeps the family):
-- the session is live only while the member and that configuration remain.
CREATE TABLE sso_sessions (
  family_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  config_id TEXT NOT NULL,
  amr TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX sso_sessions_org ON sso_sessions(org_id);

-- Owner break-glass sign-ins (password and second factor) into an organization that enforces SSO:
-- recorded once per session family, when every owner is told.
CREATE TABLE sso_break_glass (
  family_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (family_id, org_id)
);
