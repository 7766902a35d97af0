/** What the account export reads (account/export.ts): every section, in one batch (one snapshot). */
import type {
  emailAddresses,
  invitations,
  orgMemberships,
  orgs,
  passkeys,
  phones,
  securityEvents,
  sessions,
  siteMemberships,
  totpFactors,
  users,
} from "../../../schema/identity";
import type { Computed, Row } from "../../lib/rows";
import { query } from "../../lib/sql";

type ProfileRow = Row<typeof users, "id" | "display_name" | "status" | "created_at" | "updated_at"> &
  Computed<{ password_set: number }>;
type EmailRow = Row<
  typeof emailAddresses,
  "id" | "address" | "is_primary" | "verified_at" | "usable_at" | "created_at"
>;
type RecoverySummaryRow = Computed<{ total: number; unused: number; generated_at: string | null }>;
type SessionRow = Row<
  typeof sessions,
  | "id"
  | "auth_method"
  | "trusted_device"
  | "ip"
  | "user_agent"
  | "created_at"
  | "expires_at"
  | "revoked_at"
  | "revoked_reason"
>;
type OrgRow = Row<typeof orgMemberships, "org_id" | "role" | "created_at"> &
  Row<typeof orgs, "name" | "slug"> &
  Computed<{ titular_owner: number }>;
type InvitationRow = Row<
  typeof invitations,
  | "id"
  | "scope"
  | "org_id"
  | "site_id"
  | "email"
  | "role"
  | "created_at"
  | "expires_at"
  | "accepted_at"
  | "revoked_at"
> &
  Computed<{ org_name: string; sent: number; received: number }>;
type EventRow = Row<
  typeof securityEvents,
  "id" | "type" | "method" | "target" | "detail" | "ip_prefix" | "user_agent" | "created_at"
>;

/** The statements of the export, in the order `exportAccount` (account/export.ts) reads them. */
export function exportQueries(db: D1Database, userId: string) {
  return [
    query<ProfileRow>(
      db,
      "SELECT id, display_name, status, (password_hash IS NOT NULL) AS password_set, created_at, updated_at FROM users WHERE id = ?1",
      userId,
    ),
    query<EmailRow>(
      db,
      "SELECT id, address, is_primary, verified_at, usable_at, created_at FROM email_addresses WHERE user_id = ?1 ORDER BY created_at, id",
      userId,
    ),
    query<Row<typeof phones, "e164" | "verified_at" | "created_at">>(
      db,
      "SELECT e164, verified_at, created_at FROM phones WHERE user_id = ?1",
      userId,
    ),
    query<Row<typeof totpFactors, "confirmed_at" | "created_at">>(
      db,
      "SELECT confirmed_at, created_at FROM totp_factors WHERE user_id = ?1",
      userId,
    ),
    query<RecoverySummaryRow>(
      db,
      "SELECT COUNT(*) AS total, COUNT(*) - COUNT(used_at) AS unused, MAX(created_at) AS generated_at FROM recovery_codes WHERE user_id = ?1",
      userId,
    ),
    query<Row<typeof passkeys, "id" | "name" | "discoverable" | "created_at" | "last_used_at">>(
      db,
      "SELECT id, name, discoverable, created_at, last_used_at FROM passkeys WHERE user_id = ?1 ORDER BY created_at, id",
      userId,
    ),
    query<SessionRow>(
      db,
      `SELECT id, auth_method, trusted_device, ip, user_agent, created_at, expires_at, revoked_at, revoked_reason
       FROM sessions WHERE user_id = ?1 ORDER BY created_at, id`,
      userId,
    ),
    query<OrgRow>(
      db,
      `SELECT o.id AS org_id, o.name, o.slug, m.role, m.created_at, (o.owner_user_id = ?1) AS titular_owner
       FROM org_memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ?1 ORDER BY m.created_at, o.id`,
      userId,
    ),
    query<Row<typeof siteMemberships, "site_id" | "org_id" | "role" | "created_at">>(
      db,
      "SELECT site_id, org_id, role, created_at FROM site_memberships WHERE user_id = ?1 ORDER BY created_at, site_id",
      userId,
    ),
    query<InvitationRow>(
      db,
      `SELECT i.id, i.scope, i.org_id, o.name AS org_name, i.site_id, i.email, i.role, i.created_at, i.expires_at,
              i.accepted_at, i.revoked_at, (i.invited_by = ?1) AS sent, (i.email IN
                (SELECT address FROM email_addresses WHERE user_id = ?1 AND verified_at IS NOT NULL)) AS received
       FROM invitations i JOIN orgs o ON o.id = i.org_id
       WHERE i.invited_by = ?1 OR i.email IN (SELECT address FROM email_addresses WHERE user_id = ?1 AND verified_at IS NOT NULL)
       ORDER BY i.created_at, i.id`,
      userId,
    ),
    query<EventRow>(
      db,
      `SELECT id, type, method, target, detail, ip_prefix, user_agent, created_at FROM security_events
       WHERE user_id = ?1 ORDER BY id`,
      userId,
    ),
  ] as const;
}
