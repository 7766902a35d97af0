/**
 * Drizzle description of the identity database (mirrors migrations/identity/*.sql, which is the source
 * applied by wrangler; partial unique indexes and the preset role rows live only in SQL). The service
 * queries with prepared D1 statements in src/identity/store.ts and the Durable Objects, because its
 * writes are compare-and-set UPDATEs and batches that read best as SQL.
 */
import { index, integer, primaryKey, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  status: text("status", { enum: ["pending_verification", "active", "locked", "disabled"] }).notNull(),
  passwordHash: text("password_hash"),
  displayName: text("display_name"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const emailAddresses = sqliteTable(
  "email_addresses",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    verifiedAt: text("verified_at"),
    isPrimary: integer("is_primary").notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  (t) => [unique().on(t.userId, t.address), index("email_addresses_address").on(t.address)],
);

export const platformOperators = sqliteTable("platform_operators", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  capability: text("capability", { enum: ["operator_read", "operator_admin"] }).notNull(),
  grantedAt: text("granted_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    kind: text("kind").notNull().default("staff"),
    refreshHash: text("refresh_hash").notNull().unique(),
    trustedDevice: integer("trusted_device").notNull().default(0),
    authMethod: text("auth_method").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
    revokedReason: text("revoked_reason"),
    rotatedTo: text("rotated_to"),
  },
  (t) => [index("sessions_user").on(t.userId, t.revokedAt), index("sessions_family").on(t.familyId)],
);

export const totpFactors = sqliteTable("totp_factors", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secretEnc: text("secret_enc").notNull(),
  confirmedAt: text("confirmed_at"),
  lastUsedStep: integer("last_used_step"),
  createdAt: text("created_at").notNull(),
});

export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [unique().on(t.userId, t.codeHash)],
);

export const phones = sqliteTable("phones", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  e164: text("e164").notNull(),
  verifiedAt: text("verified_at"),
  createdAt: text("created_at").notNull(),
});

export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull().unique(),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports"),
    name: text("name"),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

export const passkeyCeremonies = sqliteTable("passkey_ceremonies", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  challenge: text("challenge").notNull(),
  expiresAt: text("expires_at").notNull(),
});

export const otpCodes = sqliteTable(
  "otp_codes",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose").notNull(),
    target: text("target").notNull(),
    userId: text("user_id"),
    context: text("context"),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("otp_codes_target").on(t.purpose, t.target, t.usedAt),
    index("otp_codes_user").on(t.userId, t.purpose),
  ],
);

export const outboxMessages = sqliteTable(
  "outbox_messages",
  {
    id: text("id").primaryKey(),
    toAddress: text("to_address").notNull(),
    channel: text("channel").notNull(),
    purpose: text("purpose").notNull(),
    code: text("code"),
    link: text("link"),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("outbox_messages_to").on(t.toAddress, t.id)],
);

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  ownerUserId: text("owner_user_id").notNull(),
  createdAt: text("created_at").notNull(),
});

export const roles = sqliteTable("roles", {
  id: text("id").primaryKey(),
  orgId: text("org_id"),
  scope: text("scope", { enum: ["org", "site"] }).notNull(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  isSystem: integer("is_system").notNull().default(0),
  permissions: text("permissions").notNull().default("[]"),
  createdAt: text("created_at").notNull(),
});

export const orgMemberships = sqliteTable(
  "org_memberships",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("org_memberships_user").on(t.userId)],
);

export const siteMemberships = sqliteTable(
  "site_memberships",
  {
    siteId: text("site_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orgId: text("org_id"),
    role: text("role").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.userId] }), index("site_memberships_user").on(t.userId)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    siteId: text("site_id"),
    scope: text("scope", { enum: ["org", "site"] }).notNull(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: text("invited_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    index("invitations_org").on(t.orgId, t.acceptedAt, t.revokedAt),
    index("invitations_site").on(t.siteId),
  ],
);

export const transfers = sqliteTable(
  "transfers",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    fromOrgId: text("from_org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    toOrgId: text("to_org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["transfer", "share"] }).notNull(),
    shareRole: text("share_role"),
    status: text("status", { enum: ["pending", "accepted", "rejected", "cancelled", "expired"] }).notNull(),
    createdBy: text("created_by").notNull(),
    decidedBy: text("decided_by"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    decidedAt: text("decided_at"),
  },
  (t) => [index("transfers_to").on(t.toOrgId, t.status), index("transfers_from").on(t.fromOrgId, t.status)],
);
