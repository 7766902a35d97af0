-- Issue 31: passkey-first sign-in makes a passkey a whole login, so every passkey registration costs the
-- step-up. 1 when the passkey's ceremony was opened with the step-up code, 0 when it was not: every
-- passkey from before this migration (an account without a factor registered its first with the access
-- token alone). A password reset ends every passkey with 0, in the reset's own batch.
ALTER TABLE passkeys ADD COLUMN stepped_up INTEGER NOT NULL DEFAULT 0;
