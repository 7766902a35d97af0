/**
 * The test-only settings of the workerd projects (the deploy refuses every TEST_ var; the timing project and
 * the bench run without them, at production values):
 * - TEST_SCRYPT_COST: a cheaper scrypt (about 1 ms a hash instead of 155 ms); identity reads it
 *   (src/identity/signup/password.ts `usePasswordCost`).
 * - TEST_OUTBOUND_DEADLINE_MS: identity's outbound deadlines (OpenID provider, OAuth client documents, breach
 *   range API; src/identity/core/deadlines.ts) at 30 s instead of 3-5 s: the fakes answer from the vitest
 *   process, which two busy cores can starve for seconds. The deadlines themselves are tested at their
 *   production values in the timing project (test/identity/outbound-deadlines.security.test.ts).
 * Used by the workerd projects (test/support/workers.ts) and the browser project's platform
 * (test/support/browser-platform.ts).
 */
export const testOnlySettings: Record<string, string> = {
  TEST_SCRYPT_COST: "ln=10,r=8,p=1",
  TEST_OUTBOUND_DEADLINE_MS: "30000",
};
