-- Site fences (issue 38, docs/decisions/site-groups.md "Moving a site"): while a site moves between groups,
-- the group it leaves refuses every write of the site's rows (state 'moving' during the copy, 'moved' after the
-- switch, so an isolate that still routes there cannot write), and the group it goes to refuses them until the
-- switch ('incoming'). The mover's own copies and deletes open the fence inside their own batch: the batch's
-- first statement sets purging = 1 and its last sets it back to 0 (a D1 batch is one transaction, so no other
-- writer ever sees it open). Every table that holds a site's rows has BEFORE INSERT/UPDATE/DELETE triggers;
-- child tables without a site_id find it through their parent.
CREATE TABLE site_fences (
  site_id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('incoming', 'moving', 'moved')),
  -- The other group of the move (where the site goes, or comes from).
  other_group TEXT NOT NULL,
  purging INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TRIGGER sites_fence_insert BEFORE INSERT ON sites WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER sites_fence_update BEFORE UPDATE ON sites WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER sites_fence_delete BEFORE DELETE ON sites WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER api_keys_fence_insert BEFORE INSERT ON api_keys WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER api_keys_fence_update BEFORE UPDATE ON api_keys WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER api_keys_fence_delete BEFORE DELETE ON api_keys WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER post_types_fence_insert BEFORE INSERT ON post_types WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_types_fence_update BEFORE UPDATE ON post_types WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_types_fence_delete BEFORE DELETE ON post_types WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER posts_fence_insert BEFORE INSERT ON posts WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER posts_fence_update BEFORE UPDATE ON posts WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER posts_fence_delete BEFORE DELETE ON posts WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER media_fence_insert BEFORE INSERT ON media WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER media_fence_update BEFORE UPDATE ON media WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER media_fence_delete BEFORE DELETE ON media WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER outbound_effects_fence_insert BEFORE INSERT ON outbound_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER outbound_effects_fence_update BEFORE UPDATE ON outbound_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER outbound_effects_fence_delete BEFORE DELETE ON outbound_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER import_lines_fence_insert BEFORE INSERT ON import_lines WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER import_lines_fence_update BEFORE UPDATE ON import_lines WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER import_lines_fence_delete BEFORE DELETE ON import_lines WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER post_effects_fence_insert BEFORE INSERT ON post_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_effects_fence_update BEFORE UPDATE ON post_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_effects_fence_delete BEFORE DELETE ON post_effects WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER site_transfers_fence_insert BEFORE INSERT ON site_transfers WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER site_transfers_fence_update BEFORE UPDATE ON site_transfers WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER site_transfers_fence_delete BEFORE DELETE ON site_transfers WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER analytics_visitors_fence_insert BEFORE INSERT ON analytics_visitors WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_visitors_fence_update BEFORE UPDATE ON analytics_visitors WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_visitors_fence_delete BEFORE DELETE ON analytics_visitors WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER analytics_daily_fence_insert BEFORE INSERT ON analytics_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_daily_fence_update BEFORE UPDATE ON analytics_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_daily_fence_delete BEFORE DELETE ON analytics_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER analytics_paths_daily_fence_insert BEFORE INSERT ON analytics_paths_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_paths_daily_fence_update BEFORE UPDATE ON analytics_paths_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_paths_daily_fence_delete BEFORE DELETE ON analytics_paths_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER analytics_referrers_daily_fence_insert BEFORE INSERT ON analytics_referrers_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_referrers_daily_fence_update BEFORE UPDATE ON analytics_referrers_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER analytics_referrers_daily_fence_delete BEFORE DELETE ON analytics_referrers_daily WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER forms_app_state_fence_insert BEFORE INSERT ON forms_app_state WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER forms_app_state_fence_update BEFORE UPDATE ON forms_app_state WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER forms_app_state_fence_delete BEFORE DELETE ON forms_app_state WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER forms_fence_insert BEFORE INSERT ON forms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER forms_fence_update BEFORE UPDATE ON forms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER forms_fence_delete BEFORE DELETE ON forms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER leads_fence_insert BEFORE INSERT ON leads WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER leads_fence_update BEFORE UPDATE ON leads WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER leads_fence_delete BEFORE DELETE ON leads WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER audit_events_fence_insert BEFORE INSERT ON audit_events WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER audit_events_fence_update BEFORE UPDATE ON audit_events WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER audit_events_fence_delete BEFORE DELETE ON audit_events WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER webhooks_fence_insert BEFORE INSERT ON webhooks WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER webhooks_fence_update BEFORE UPDATE ON webhooks WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER webhooks_fence_delete BEFORE DELETE ON webhooks WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER webhook_deliveries_fence_insert BEFORE INSERT ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER webhook_deliveries_fence_update BEFORE UPDATE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER webhook_deliveries_fence_delete BEFORE DELETE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER author_personas_fence_insert BEFORE INSERT ON author_personas WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER author_personas_fence_update BEFORE UPDATE ON author_personas WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER author_personas_fence_delete BEFORE DELETE ON author_personas WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER taxonomy_terms_fence_insert BEFORE INSERT ON taxonomy_terms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER taxonomy_terms_fence_update BEFORE UPDATE ON taxonomy_terms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER taxonomy_terms_fence_delete BEFORE DELETE ON taxonomy_terms WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER post_media_refs_fence_insert BEFORE INSERT ON post_media_refs WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_media_refs_fence_update BEFORE UPDATE ON post_media_refs WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_media_refs_fence_delete BEFORE DELETE ON post_media_refs WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER post_revisions_fence_insert BEFORE INSERT ON post_revisions WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_revisions_fence_update BEFORE UPDATE ON post_revisions WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER post_revisions_fence_delete BEFORE DELETE ON post_revisions WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER preview_links_fence_insert BEFORE INSERT ON preview_links WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER preview_links_fence_update BEFORE UPDATE ON preview_links WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER preview_links_fence_delete BEFORE DELETE ON preview_links WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER ended_member_grants_fence_insert BEFORE INSERT ON ended_member_grants WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER ended_member_grants_fence_update BEFORE UPDATE ON ended_member_grants WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0) OR EXISTS (SELECT 1 FROM site_fences WHERE site_id = new.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER ended_member_grants_fence_delete BEFORE DELETE ON ended_member_grants WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = old.site_id AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER media_tags_fence_insert BEFORE INSERT ON media_tags
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM media WHERE id = new.media_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER media_tags_fence_update BEFORE UPDATE ON media_tags
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM media WHERE id = old.media_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER media_tags_fence_delete BEFORE DELETE ON media_tags
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM media WHERE id = old.media_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER form_token_uses_fence_insert BEFORE INSERT ON form_token_uses
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM forms WHERE id = new.form_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER form_token_uses_fence_update BEFORE UPDATE ON form_token_uses
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM forms WHERE id = old.form_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER form_token_uses_fence_delete BEFORE DELETE ON form_token_uses
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = (SELECT site_id FROM forms WHERE id = old.form_id) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;

CREATE TRIGGER idempotency_records_fence_insert BEFORE INSERT ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce((SELECT site_id FROM api_keys WHERE id = new.key_id),
    CASE WHEN new.key_id LIKE 'person:%' THEN substr(new.key_id, length(rtrim(new.key_id, replace(new.key_id, ':', ''))) + 1) END) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER idempotency_records_fence_update BEFORE UPDATE ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce((SELECT site_id FROM api_keys WHERE id = old.key_id),
    CASE WHEN old.key_id LIKE 'person:%' THEN substr(old.key_id, length(rtrim(old.key_id, replace(old.key_id, ':', ''))) + 1) END) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
CREATE TRIGGER idempotency_records_fence_delete BEFORE DELETE ON idempotency_records
  WHEN EXISTS (SELECT 1 FROM site_fences WHERE site_id = coalesce((SELECT site_id FROM api_keys WHERE id = old.key_id),
    CASE WHEN old.key_id LIKE 'person:%' THEN substr(old.key_id, length(rtrim(old.key_id, replace(old.key_id, ':', ''))) + 1) END) AND purging = 0)
BEGIN SELECT RAISE(ABORT, 'site_fenced'); END;
