/**
 * The timing project's first setup file: its samples wait until nothing else runs. `npm test` starts the
 * timing project's vitest while the other projects still run, so its start-up (the config, the runtime,
 * the migrations: about 12 s) is off the critical path, and opens the gate when they have all ended
 * (scripts/test.mjs, `TEST_TIMING_GATE`). The gate is the harness's host in the vitest config's outbound
 * service (`timingGateService`): it answers once the signal file exists, or at once when the run has no
 * gate (`npm test -- timing`, `vitest run`). Setup files run before each file; once open it stays open.
 */
const res = await fetch("https://harness.test/timing-gate");
if (!res.ok) throw new Error(`the timing gate answered ${res.status}: ${await res.text()}`);
await res.arrayBuffer();

export {};
