-- Issue 36: mail in the recipient's language. An account's `locale` ("en" | "pt-BR"): set at sign-up
-- from Accept-Language (Portuguese of any region -> pt-BR, else en), changed on the account page and by
-- PATCH /api/v1/auth/me. Every account from before this migration writes in English.
ALTER TABLE users ADD COLUMN locale TEXT NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'pt-BR'));
-- The dev outbox keeps each mail's HTML body beside its plain-text alternative (`body`): the gateway's
-- /__dev/mail shows it. NULL for an SMS and for messages stored before this migration.
ALTER TABLE outbox_messages ADD COLUMN html TEXT;
