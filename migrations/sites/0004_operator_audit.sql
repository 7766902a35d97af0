-- The operator console (issue 12). Audit trail of operator actions on sites: every lifecycle transition
-- that changed a site and every purge, with the acting person and capability. A purge's row is written in
-- the same batch as the delete and keeps what the site was (id, slug, organization, hosts, status), since
-- the site row itself is gone.
CREATE TABLE site_audit (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL CHECK (action IN ('deactivate', 'archive', 'restore', 'purge')),
  site_id TEXT NOT NULL,
  site_slug TEXT NOT NULL,
  org_id TEXT NOT NULL,
  from_status TEXT NOT NULL,
  -- NULL for a purge (no state after it).
  to_status TEXT,
  -- JSON array of every host the site answered on (platform host, primary domain, aliases).
  hosts_json TEXT NOT NULL,
  actor_user_id TEXT,
  actor_capability TEXT NOT NULL,
  reason TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX site_audit_site ON site_audit (site_id, created_at);

-- Keyset order of the console's list: a site id (ULID or UUID) as its 128-bit value in 32 hex digits
-- (src/sites/operator/id-order.ts, ID_ORDER_KEY_SQL: the queries must use exactly this expression to use the index).
CREATE INDEX sites_id_key ON sites (CASE WHEN length(id) = 36 THEN lower(replace(id, '-', '')) ELSE printf('%02x%010x%010x%010x', (((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 1, 1))) - 1) << 5) | (instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 2, 1))) - 1)), (((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 3, 1))) - 1) << 35) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 4, 1))) - 1) << 30) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 5, 1))) - 1) << 25) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 6, 1))) - 1) << 20) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 7, 1))) - 1) << 15) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 8, 1))) - 1) << 10) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 9, 1))) - 1) << 5) | (instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 10, 1))) - 1)), (((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 11, 1))) - 1) << 35) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 12, 1))) - 1) << 30) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 13, 1))) - 1) << 25) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 14, 1))) - 1) << 20) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 15, 1))) - 1) << 15) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 16, 1))) - 1) << 10) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 17, 1))) - 1) << 5) | (instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 18, 1))) - 1)), (((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 19, 1))) - 1) << 35) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 20, 1))) - 1) << 30) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 21, 1))) - 1) << 25) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 22, 1))) - 1) << 20) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 23, 1))) - 1) << 15) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 24, 1))) - 1) << 10) | ((instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 25, 1))) - 1) << 5) | (instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, 26, 1))) - 1))) END);
