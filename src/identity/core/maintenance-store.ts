/** The statements of the hourly cleanup (core/maintenance.ts), run as one batch, through drizzle's query builder. */
import { and, eq, lt, lte, notInArray, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import {
  otpCodes,
  outboxMessages,
  sessions,
  ssoBreakGlass,
  ssoLogins,
  ssoPending,
  ssoSessions,
  ssoUndos,
  transfers,
  users,
} from "../../../schema/identity";
import { prepared } from "../../lib/sql";
import { expiredEventsStatement } from "../events/store";

/**
 * Spent or expired codes after a day, dev-outbox messages after a week, dead sessions after 30 days,
 * pending signups nobody confirmed within 7 days; pending transfers past their expiry become `expired`;
 * security events after their retention (events/store.ts).
 */
export function cleanupStatements(db: D1Database, now: number): D1PreparedStatement[] {
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
  const day = 24 * 3600 * 1000;
  const d = drizzle(db);
  const liveFamilies = () => d.select({ family_id: sessions.family_id }).from(sessions);
  return [
    ...[
      d.delete(otpCodes).where(or(lt(otpCodes.expires_at, iso(day)), lt(otpCodes.used_at, iso(day)))),
      d.delete(outboxMessages).where(lt(outboxMessages.created_at, iso(7 * day))),
      d
        .delete(sessions)
        .where(or(lt(sessions.expires_at, iso(30 * day)), lt(sessions.revoked_at, iso(30 * day)))),
      d
        .delete(users)
        .where(and(eq(users.status, "pending_verification"), lt(users.created_at, iso(7 * day)))),
      d
        .update(transfers)
        .set({ status: "expired" })
        .where(and(eq(transfers.status, "pending"), lte(transfers.expires_at, iso(0)))),
    ].map((write) => prepared(db, write)),
    expiredEventsStatement(db, now),
    ...[
      // Issue 24 §1: SSO authorization requests and pending registrations or links, a day after they died.
      d.delete(ssoLogins).where(lt(ssoLogins.expires_at, iso(day))),
      d.delete(ssoPending).where(lt(ssoPending.expires_at, iso(day))),
      d.delete(ssoUndos).where(lt(ssoUndos.expires_at, iso(day))),
      // SSO session records whose sessions are gone (deleted 30 days after expiry or revocation above).
      d.delete(ssoSessions).where(notInArray(ssoSessions.family_id, liveFamilies())),
      d.delete(ssoBreakGlass).where(notInArray(ssoBreakGlass.family_id, liveFamilies())),
    ].map((write) => prepared(db, write)),
  ];
}
