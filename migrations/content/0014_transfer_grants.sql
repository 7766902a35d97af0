-- Issue 19: a `transfer` ends the origin's integrations on the site. The site-transferred consumer carries
-- its API keys and webhooks over (suspended, never deleted): they are refused until an administrator of
-- the new owner keeps (reactivates) or revokes each one.
ALTER TABLE api_keys ADD COLUMN carried_over_at TEXT;
ALTER TABLE api_keys ADD COLUMN carried_over_from TEXT;

-- Webhooks are stamped for their organization like keys (set at insert from the site_owner view), so the
-- fan-out can refuse a webhook whose organization no longer owns the site before the consumer has run.
ALTER TABLE webhooks ADD COLUMN org_id TEXT;
ALTER TABLE webhooks ADD COLUMN carried_over_at TEXT;
ALTER TABLE webhooks ADD COLUMN carried_over_from TEXT;
UPDATE webhooks SET org_id = (SELECT org_id FROM site_owner WHERE site_owner.site_id = webhooks.site_id);
CREATE TRIGGER webhooks_stamp_org AFTER INSERT ON webhooks WHEN new.org_id IS NULL BEGIN
  UPDATE webhooks SET org_id = (SELECT org_id FROM site_owner WHERE site_id = new.site_id) WHERE id = new.id;
END;

-- When content learned that the projection's owner organization changed (NULL until it first changes): with
-- the applied transfer's `applied_at`, the start of the 30 s in which site-scope grants are not honoured
-- for key and webhook administration (the gateway may still send memberships the transfer ended).
ALTER TABLE sites ADD COLUMN org_changed_at TEXT;
