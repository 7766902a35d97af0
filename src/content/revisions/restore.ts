/**
 * The old name of ./revisions.ts, kept for revisions/routes.ts's import until it imports ./revisions: a
 * file named `*store*` counts as a store module (test/structure/typed-data.unit.test.ts), which this is not.
 */
export { postRevisions, REVISIONS_MAX_LIMIT, restoreRevision, revisionNumber } from "./revisions";
