-- Issue 18 item 6: whether a passkey is a discoverable credential (can sign in alone), as the browser
-- reported it at registration in the credProps extension: 1 yes, 0 no, NULL not reported (older
-- passkeys, or a browser without credProps). Informational: sign-in never depends on it.
ALTER TABLE passkeys ADD COLUMN discoverable INTEGER;
