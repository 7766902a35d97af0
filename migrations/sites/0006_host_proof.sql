-- A custom host is served only once proved (issue 19; docs/decisions/host-proof.md): `verified_at` set by
-- the TXT record `_platform-verify.<host>` or by the host's own DNS pointing at the platform while a random
-- sibling name does not (no wildcard). The hourly sweep re-checks every host: a proved host whose proof is
-- no longer seen gets `proof_missing_since`; after the grace period it stops being served (`verified_at`
-- back to NULL) and `proof_lost_at` tells its health why.
ALTER TABLE site_hosts ADD COLUMN proof_missing_since TEXT;
ALTER TABLE site_hosts ADD COLUMN proof_lost_at TEXT;
