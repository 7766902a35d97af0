-- Issue 18: every credential costs proof, the owner hears of it, and it ends when what granted it ends.
-- Raised in the same batch as every password change or reset and every "this was not me": a login
-- challenge records the epoch it was opened at and signs in only while it is unchanged.
ALTER TABLE users ADD COLUMN credential_epoch INTEGER NOT NULL DEFAULT 0;
-- A factor's own id (new at each enrollment), named by the owner notice's undo link.
ALTER TABLE totp_factors ADD COLUMN id TEXT;
ALTER TABLE phones ADD COLUMN id TEXT;
-- 1 when the enrollment ceremony was opened with the step-up code: it may complete on an account that
-- already has a factor; 0 only while the account has none.
ALTER TABLE totp_factors ADD COLUMN stepped_up INTEGER NOT NULL DEFAULT 0;
ALTER TABLE passkey_ceremonies ADD COLUMN stepped_up INTEGER NOT NULL DEFAULT 0;
