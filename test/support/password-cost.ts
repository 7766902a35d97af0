/**
 * A cheaper scrypt for tests (about 1 ms a hash instead of 155 ms): identity reads it from this binding
 * (src/identity/signup/password.ts `usePasswordCost`). The deploy refuses every TEST_ var; the timing project
 * and the bench run without it, at the production cost. Used by the workerd projects (test/support/workers.ts)
 * and the browser project's platform (test/support/browser-platform.ts).
 */
export const testPasswordCost: Record<string, string> = { TEST_SCRYPT_COST: "ln=10,r=8,p=1" };
