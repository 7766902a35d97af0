-- Issue 35, keys: an API key's name, scopes and allowed origins can be edited (PATCH /api/v1/sites/{site_id}/api-keys/{id});
-- a public key may serve reads without an Origin when its owner opts in (`server_reads`: the server-side
-- rendering path, never a browser); and a key's last widening (a scope, an origin or server reads it did
-- not have) is recorded on the key like its creation is (`created_by`, `created_at`): who, when and what
-- was added (`widened_json`: {"scopes": [...], "allowed_origins": [...], "server_reads": bool}), listed to the
-- site's administrators (docs/decisions/key-editing.md).

ALTER TABLE api_keys ADD COLUMN server_reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN widened_at TEXT;
ALTER TABLE api_keys ADD COLUMN widened_by TEXT;
ALTER TABLE api_keys ADD COLUMN widened_json TEXT;
