/** Env of the identity worker: generated bindings and vars plus the secrets `wrangler types` cannot see. */
export type Env = IdentityEnv & {
  /** JSON `{"current": <Ed25519 private JWK with kid>, "next": <same>}`. */
  JWT_SIGNING_KEYS: string;
  /** Key of the HMAC over one-time codes, recovery codes and the TOTP secret encryption key. */
  OTP_PEPPER: string;
  /** "true" only in local development and tests: e-mail and SMS land in the D1 outbox. */
  DEV_OUTBOX?: string;
  /** Tests only ("ln=10,r=8,p=1"): a cheaper scrypt. A deploy refuses every TEST_ var. */
  TEST_SCRYPT_COST?: string;
  /** Tests only: every outbound deadline of identity, in ms (core/deadlines.ts). A deploy refuses it. */
  TEST_OUTBOUND_DEADLINE_MS?: string;
  /** E-mail provider (production; docs/providers.md): `resend`, `postmark` or `ses`. */
  MAIL_PROVIDER?: string;
  /** Override of the provider's API endpoint (a relay, a test host); alone, a Resend-format endpoint. */
  MAIL_PROVIDER_URL?: string;
  /** Resend API key, Postmark server token, or SES `<access key id>:<secret access key>` (a secret). */
  MAIL_PROVIDER_TOKEN?: string;
  /** SES region (default us-east-1). */
  MAIL_PROVIDER_REGION?: string;
  MAIL_FROM?: string;
  /** SMS provider (production): `twilio`. Without one (and no dev outbox) SMS is off: 501 SMS_DISABLED. */
  SMS_PROVIDER?: string;
  /** Override of `https://api.twilio.com` (a test host); alone, selects Twilio. */
  SMS_PROVIDER_URL?: string;
  /** Twilio Auth Token (a secret). */
  SMS_PROVIDER_TOKEN?: string;
  /** Twilio Account SID (`AC…`). */
  TWILIO_ACCOUNT_SID?: string;
  /** The SMS sender: an E.164 number, an alphanumeric sender id, or a Messaging Service SID (`MG…`). */
  SMS_FROM?: string;
  /** Key of the sealed OpenID client secrets of organizations (sso/secret-box.ts). */
  SSO_SECRET_KEY?: string;
  /** "true" only in local development (`npm start`): `http://localhost` OpenID issuers are allowed. */
  DEV_SSO_LOCAL_ISSUERS?: string;
};
