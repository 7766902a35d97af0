-- Issue 9: owner safety.
-- An address added to an existing account is proven at verified_at but usable for sign-in and recovery
-- only from usable_at (the cooling-off); NULL means usable as soon as verified (signup, invitation).
ALTER TABLE email_addresses ADD COLUMN usable_at TEXT;
-- Magic-link and password-reset codes also carry a 256-bit link token (only its HMAC is stored): the
-- link is not guessable, so it is not attempt-limited and survives a stranger's wrong typed codes.
ALTER TABLE otp_codes ADD COLUMN link_hash TEXT;
CREATE INDEX otp_codes_link ON otp_codes (link_hash) WHERE link_hash IS NOT NULL;
