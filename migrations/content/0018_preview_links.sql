-- Issue 31: a preview link is a row naming what granted it (docs/decisions/previews.md). The link's token
-- is `p2.<32 random bytes, base64url>`; only its SHA-256 is stored. A link answers while it is live
-- (`ended_at` NULL, `expires_at` ahead), its post not deleted, its site active and still owned by the
-- organization it was made for (`org_id`), and the key that made it (`key_id`) unrevoked, not carried
-- over and stamped for that organization. `user_id` is for links a person makes from a session (none
-- yet): the read joins the key, so such a link answers nothing until its ending is built.
CREATE TABLE preview_links (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  post_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  key_id TEXT,
  user_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT,
  CHECK (key_id IS NOT NULL OR user_id IS NOT NULL)
);
CREATE INDEX preview_links_post ON preview_links (post_id);
CREATE INDEX preview_links_site ON preview_links (site_id);
CREATE INDEX preview_links_expiry ON preview_links (expires_at);
CREATE TRIGGER preview_links_delete AFTER DELETE ON posts BEGIN
  DELETE FROM preview_links WHERE post_id = old.id;
END;

-- The per-post secrets signed `p1` links, which name no key: every such link ends here (each lived at
-- most 24 h; a new link is one call).
DROP TRIGGER post_preview_secrets_delete;
DROP TABLE post_preview_secrets;
