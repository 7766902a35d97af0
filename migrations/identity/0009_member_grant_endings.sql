-- Issue 26: a person's grant on a site ends when their organization or site membership is removed or its
-- role changes (removal, leaving, demotion, account erasure, a transfer's ended memberships). The triggers
-- record each such change in the statement that makes it, whatever the path, so no write can forget it.
-- `grant-endings.ts` then decides whether the person still holds `integrations` there and, if not, has
-- content end the keys and webhooks they created (through sites), tells the owners, and marks the row.
-- Rows are addressed by SQLite's rowid (delivery order).
CREATE TABLE member_grant_endings (
  user_id TEXT NOT NULL,
  org_id TEXT,
  site_id TEXT,
  ended_at TEXT NOT NULL,
  delivered_at TEXT,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX member_grant_endings_pending ON member_grant_endings (delivered_at, user_id);

CREATE TRIGGER org_membership_grant_ended AFTER DELETE ON org_memberships BEGIN
  INSERT INTO member_grant_endings (user_id, org_id, site_id, ended_at)
  VALUES (old.user_id, old.org_id, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER org_membership_role_grant_ended AFTER UPDATE OF role ON org_memberships
WHEN old.role IS NOT new.role BEGIN
  INSERT INTO member_grant_endings (user_id, org_id, site_id, ended_at)
  VALUES (old.user_id, old.org_id, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER site_membership_grant_ended AFTER DELETE ON site_memberships BEGIN
  INSERT INTO member_grant_endings (user_id, org_id, site_id, ended_at)
  VALUES (old.user_id, old.org_id, old.site_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
CREATE TRIGGER site_membership_role_grant_ended AFTER UPDATE OF role ON site_memberships
WHEN old.role IS NOT new.role BEGIN
  INSERT INTO member_grant_endings (user_id, org_id, site_id, ended_at)
  VALUES (old.user_id, old.org_id, old.site_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
