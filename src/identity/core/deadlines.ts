/**
 * Identity's outbound deadlines (an organization's OpenID provider, an OAuth client's metadata document,
 * the breach range API) are production settings. `TEST_OUTBOUND_DEADLINE_MS` (tests only: a deploy
 * refuses every TEST_ var, scripts/deploy-config.mjs) replaces each of them in the test projects, whose
 * fakes answer from the vitest process: four lanes on two cores can starve that process for seconds, and a
 * 5 s deadline there measured the machine, not the provider (a credential-matrix row failed on
 * 502 SSO_PROVIDER_UNAVAILABLE "timeout" while signups beside it took 3.3 s). The deadline tests themselves
 * run at the production values in the `timing` project (test/identity/outbound-deadlines.security.test.ts).
 */
export function outboundDeadline(env: { TEST_OUTBOUND_DEADLINE_MS?: string }, productionMs: number): number {
  const override = Number(env.TEST_OUTBOUND_DEADLINE_MS);
  return Number.isInteger(override) && override > 0 ? override : productionMs;
}
