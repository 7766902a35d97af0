/** The test OpenID provider's names (test/support/fakes/oidc.ts), shared by Node and workerd code. */
export const IDP_HOST = "idp.test";
export const IDP_ISSUER = `https://${IDP_HOST}`;
export const IDP_CLIENT = { client_id: "platform-test", client_secret: "platform-test-secret-0123456789" };
/** The identity worker's ISSUER in tests (workers/identity/wrangler.toml) and its callback. */
export const TEST_CALLBACK = "http://localhost:8787/api/v1/auth/sso/callback";
