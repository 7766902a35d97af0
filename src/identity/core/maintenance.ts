/** Scheduled cleanup of dead rows. */
import { batch } from "../../lib/sql";
import { cleanupStatements } from "./maintenance-store";

/**
 * Hourly cleanup (cron): spent or expired codes after a day, dev-outbox messages after a week, dead
 * sessions after 30 days, pending signups nobody confirmed within 7 days; pending transfers past their
 * expiry become `expired`; security events after their retention (events/store.ts).
 */
export async function cleanupExpired(db: D1Database, now = Date.now()) {
  await batch(db, cleanupStatements(db, now));
}
