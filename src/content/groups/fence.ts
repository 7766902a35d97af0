/**
 * A write the site's fence refused (migration 0023: `RAISE(ABORT, 'site_fenced')`, docs/decisions/site-groups.md
 * "Moving a site"): the site is moving between groups, or has moved and this isolate still routed it to the
 * old one. Nothing was written (the trigger aborts the whole statement, and a D1 batch with it). The answer is
 * 503 SITE_MOVING with `Retry-After`, never a 500, and this isolate forgets the site's route so its retry
 * reads the directory afresh.
 */
import type { ApiError } from "../../lib/problem";
import { driverMessage } from "../../lib/sql";
import { forgetRoute } from "../core/groups";
import { problem } from "../errors";

/** Seconds a refused writer waits (a move's copy of a site of 10,000 posts takes tens of seconds). */
export const SITE_MOVING_RETRY_AFTER_SECONDS = 5;

/** Whether `err` is a D1 error of a write the site's fence refused. */
export function isSiteFenced(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return /\bsite_fenced\b/.test(err.message) || /\bsite_fenced\b/.test(driverMessage(err));
}

/** The answer to a refused write of `siteId` (null when the caller does not know the site): its route forgotten. */
export function siteMoving(siteId: string | null): ApiError {
  if (siteId) forgetRoute(siteId);
  return problem("SITE_MOVING", {
    detail:
      "The site's content is moving to another database; nothing was written. Retry after the delay given.",
    headers: { "retry-after": String(SITE_MOVING_RETRY_AFTER_SECONDS) },
  });
}
