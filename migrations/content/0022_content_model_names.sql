-- Issue 35, the content model's names. Categories and tags get a stored name and description (posts carry
-- only the slugs, in seo_json; a term without a row is named from its slug, as before); media get an alt
-- text and a caption (a post's featured_image.alt and the rendered <img alt> use them).

CREATE TABLE taxonomy_terms (
  site_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('category', 'tag')),
  slug TEXT NOT NULL,
  -- NULL: not named yet (a description alone was stored), named from the slug as before.
  name TEXT,
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (site_id, kind, slug)
);

ALTER TABLE media ADD COLUMN alt TEXT;
ALTER TABLE media ADD COLUMN caption TEXT;

-- The public answers show both (category and tag lists, post details, featured images, content_html), and
-- they are cached by the site's content version (migration 0012): writes of either move it.
CREATE TRIGGER taxonomy_terms_content_version_insert AFTER INSERT ON taxonomy_terms BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = new.site_id;
END;
CREATE TRIGGER taxonomy_terms_content_version_update AFTER UPDATE ON taxonomy_terms BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id IN (old.site_id, new.site_id);
END;
CREATE TRIGGER taxonomy_terms_content_version_delete AFTER DELETE ON taxonomy_terms BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id = old.site_id;
END;

DROP TRIGGER media_content_version_update;
CREATE TRIGGER media_content_version_update AFTER UPDATE OF status, r2_key, site_id, alt, caption ON media BEGIN
  UPDATE sites SET content_version = content_version + 1 WHERE id IN (old.site_id, new.site_id);
END;
