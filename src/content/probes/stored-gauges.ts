/**
 * The old name of ./gauges.ts, kept for probes/routes.ts's import until it imports ./gauges: a file named
 * `*store*` counts as a store module (test/structure/typed-data.unit.test.ts), which this is not.
 */
export { storedGauges } from "./gauges";
