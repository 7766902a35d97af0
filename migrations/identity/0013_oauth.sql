-- Issue 37: identity as the OAuth 2.1 authorization server of MCP agents (docs/decisions/oauth-agents.md).
-- Clients: a Client ID Metadata Document (client_id = the document's https URL; the fetched document cached
-- here) or an RFC 7591 registration (client_id = "mcp_" + ULID; a confidential one keeps its secret's hash).
CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('metadata_document', 'registered')),
  name TEXT NOT NULL,
  client_uri TEXT,
  logo_uri TEXT,
  redirect_uris TEXT NOT NULL,
  token_endpoint_auth_method TEXT NOT NULL DEFAULT 'none'
    CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  secret_hash TEXT,
  metadata_json TEXT NOT NULL,
  fetched_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- A consent in progress: the authorization request as identity validated it, bound to the signed-in person
-- who is looking at the consent page. `csrf_hash`: the hash of the token the approve/deny call must carry.
-- Single use (`decided_at`), 10 minutes.
CREATE TABLE oauth_consents (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  redirect_uri TEXT NOT NULL,
  state TEXT,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  csrf_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT
);
CREATE INDEX oauth_consents_user ON oauth_consents (user_id);

-- A grant: one person's approval of one client on one site with scopes (space-separated key scopes), for
-- one resource. It is the credential (identity.oauth_grant): its codes, refresh tokens and access tokens
-- live only while `revoked_at` is NULL.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  site_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  resource TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT,
  revoked_reason TEXT,
  revoked_by TEXT
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, revoked_at);
CREATE INDEX oauth_grants_site ON oauth_grants (site_id, revoked_at);

-- Authorization codes (hash only): 60 seconds, single use; a second use revokes the grant (RFC 9700 §4.5.3:
-- the tokens the code produced end too).
CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);

-- Refresh tokens of a grant (hash only), rotated on every use under the grant's refresh-family Durable
-- Object; a rotated one presented again revokes the grant (reuse detection, RFC 9700 §4.14.2).
CREATE TABLE oauth_refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  rotated_at TEXT
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
