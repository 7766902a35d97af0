-- An idempotency record names its site (issue 38, docs/decisions/site-groups.md "Moving a site"): an agent's
-- records (`agent:<grant>`) name no API key or person of the site, so a move left them behind, and an
-- agent's retry after the move ran its write a second time. New records carry `site_id`; the mover copies
-- and the fence refuses by it. Records written before this migration still name their site through their
-- key (API key, `person:<user>:<site>`) as 0023's triggers read them; an agent's among them expire within
-- 24 hours. No backfill: an UPDATE would fire the fence's triggers of a site moving at the time.
ALTER TABLE idempotency_records ADD COLUMN site_id TEXT;

DROP TRIGGER idempotency_records_fence_insert;
DROP TRIGGER idempotency_records_fence_update;
DROP TRIGGER idempotency_records_fence_delete;

CREATE TRIGGER idempotency_records_fence_insert BEFORE INSERT ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce(new.site_id, (SELECT site_id FROM api_keys WHERE id = new.key_id),
    CASE WHEN new.key_id LIKE 'person:%' THEN substr(new.key_id, length(rtrim(new.key_id, replace(new.key_id, ':', ''))) + 1) END) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER idempotency_records_fence_update BEFORE UPDATE ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce(old.site_id, (SELECT site_id FROM api_keys WHERE id = old.key_id),
    CASE WHEN old.key_id LIKE 'person:%' THEN substr(old.key_id, length(rtrim(old.key_id, replace(old.key_id, ':', ''))) + 1) END) AND purging = 0)
  OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER idempotency_records_fence_delete BEFORE DELETE ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce(old.site_id, (SELECT site_id FROM api_keys WHERE id = old.key_id),
    CASE WHEN old.key_id LIKE 'person:%' THEN substr(old.key_id, length(rtrim(old.key_id, replace(old.key_id, ':', ''))) + 1) END) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
