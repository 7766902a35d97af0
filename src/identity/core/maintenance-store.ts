/** The statements of the hourly cleanup (core/maintenance.ts), run as one batch. */
import { expiredEventsStatement } from "../events/store";

/**
 * Spent or expired codes after a day, dev-outbox messages after a week, dead sessions after 30 days,
 * pending signups nobody confirmed within 7 days; pending transfers past their expiry become `expired`;
 * security events after their retention (events/store.ts).
 */
export function cleanupStatements(db: D1Database, now: number): D1PreparedStatement[] {
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
  const day = 24 * 3600 * 1000;
  return [
    db.prepare("DELETE FROM otp_codes WHERE expires_at < ? OR used_at < ?").bind(iso(day), iso(day)),
    db.prepare("DELETE FROM outbox_messages WHERE created_at < ?").bind(iso(7 * day)),
    db
      .prepare("DELETE FROM sessions WHERE expires_at < ? OR revoked_at < ?")
      .bind(iso(30 * day), iso(30 * day)),
    db
      .prepare("DELETE FROM users WHERE status = 'pending_verification' AND created_at < ?")
      .bind(iso(7 * day)),
    db
      .prepare("UPDATE transfers SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?")
      .bind(iso(0)),
    expiredEventsStatement(db, now),
    // Issue 24 §1: SSO authorization requests and pending registrations or links, a day after they died.
    db.prepare("DELETE FROM sso_logins WHERE expires_at < ?").bind(iso(day)),
    db.prepare("DELETE FROM sso_pending WHERE expires_at < ?").bind(iso(day)),
    db.prepare("DELETE FROM sso_undos WHERE expires_at < ?").bind(iso(day)),
    // SSO session records whose sessions are gone (deleted 30 days after expiry or revocation above).
    db.prepare("DELETE FROM sso_sessions WHERE family_id NOT IN (SELECT family_id FROM sessions)"),
    db.prepare("DELETE FROM sso_break_glass WHERE family_id NOT IN (SELECT family_id FROM sessions)"),
  ];
}
