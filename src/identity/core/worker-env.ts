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
  /** HTTP e-mail provider (production): POST JSON messages here with MAIL_PROVIDER_TOKEN. */
  MAIL_PROVIDER_URL?: string;
  MAIL_PROVIDER_TOKEN?: string;
  MAIL_FROM?: string;
  /** HTTP SMS provider (production). */
  SMS_PROVIDER_URL?: string;
  SMS_PROVIDER_TOKEN?: string;
  /** Key of the sealed OpenID client secrets of organizations (sso/secret-box.ts). */
  SSO_SECRET_KEY?: string;
  /** "true" only in local development (`npm start`): `http://localhost` OpenID issuers are allowed. */
  DEV_SSO_LOCAL_ISSUERS?: string;
};
