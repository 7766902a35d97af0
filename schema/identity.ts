/**
 * The identity database's tables: the source of their shapes. Row types are `$inferSelect` of these
 * tables, and property names are the SQL column names so that a row read with a raw D1 statement has
 * exactly that type. Migrations (migrations/identity/*.sql, what wrangler applies) must agree column by
 * column; test/gateway/schema-matches-migrations.unit.test.ts enforces it. Partial unique indexes and
 * the preset role rows live only in SQL. Queries are in the `store.ts` and `*-store.ts` modules of
 * src/identity/<area>/, through drizzle's query builder (compare-and-set writes and batches included); the
 * SQL it cannot say (conditional `INSERT … SELECT`, writes chained on `changes()`, `rowid`) stays prepared
 * (docs/decisions/data-access.md). Only the identity worker imports this file.
 */
import { index, integer, primaryKey, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  status: text("status", { enum: ["pending_verification", "active", "locked", "disabled"] }).notNull(),
  password_hash: text("password_hash"),
  display_name: text("display_name"),
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
  /** Raised by every password change or reset and every owner's undo: open login challenges die. */
  credential_epoch: integer("credential_epoch").notNull().default(0),
  /** The language of the mail the account receives (migration 0012). */
  locale: text("locale", { enum: ["en", "pt-BR"] })
    .notNull()
    .default("en"),
});

export const emailAddresses = sqliteTable(
  "email_addresses",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    verified_at: text("verified_at"),
    /** Sign-in and recovery through this address only from here (cooling-off); NULL: at once. */
    usable_at: text("usable_at"),
    is_primary: integer("is_primary").notNull().default(0),
    created_at: text("created_at").notNull(),
  },
  (t) => [unique().on(t.user_id, t.address), index("email_addresses_address").on(t.address)],
);

export const platformOperators = sqliteTable("platform_operators", {
  user_id: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  capability: text("capability", { enum: ["operator_read", "operator_admin"] }).notNull(),
  granted_at: text("granted_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    family_id: text("family_id").notNull(),
    kind: text("kind").notNull().default("staff"),
    refresh_hash: text("refresh_hash").notNull().unique(),
    trusted_device: integer("trusted_device").notNull().default(0),
    auth_method: text("auth_method").notNull(),
    ip: text("ip"),
    user_agent: text("user_agent"),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    revoked_at: text("revoked_at"),
    revoked_reason: text("revoked_reason"),
    rotated_to: text("rotated_to"),
  },
  (t) => [index("sessions_user").on(t.user_id, t.revoked_at), index("sessions_family").on(t.family_id)],
);

export const totpFactors = sqliteTable("totp_factors", {
  user_id: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret_enc: text("secret_enc").notNull(),
  confirmed_at: text("confirmed_at"),
  last_used_step: integer("last_used_step"),
  created_at: text("created_at").notNull(),
  /** New at each enrollment: the owner notice's undo link names it. */
  id: text("id"),
  /** The enrollment was opened with the step-up code (needed when the account has another factor). */
  stepped_up: integer("stepped_up").notNull().default(0),
});

export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    code_hash: text("code_hash").notNull(),
    used_at: text("used_at"),
    created_at: text("created_at").notNull(),
  },
  (t) => [unique().on(t.user_id, t.code_hash)],
);

export const phones = sqliteTable("phones", {
  user_id: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  e164: text("e164").notNull(),
  verified_at: text("verified_at"),
  created_at: text("created_at").notNull(),
  /** New at each proven number: the owner notice's undo link names it. */
  id: text("id"),
});

export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credential_id: text("credential_id").notNull().unique(),
    public_key: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports"),
    /** credProps.rk at registration: 1 discoverable, 0 not, NULL not reported. */
    discoverable: integer("discoverable"),
    name: text("name"),
    created_at: text("created_at").notNull(),
    last_used_at: text("last_used_at"),
    /** 1: registered with the step-up (issue 31); 0: without it (older passkeys); a reset ends those. */
    stepped_up: integer("stepped_up").notNull().default(0),
  },
  (t) => [index("passkeys_user").on(t.user_id)],
);

export const passkeyCeremonies = sqliteTable("passkey_ceremonies", {
  user_id: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  challenge: text("challenge").notNull(),
  expires_at: text("expires_at").notNull(),
  stepped_up: integer("stepped_up").notNull().default(0),
});

export const otpCodes = sqliteTable(
  "otp_codes",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose").notNull(),
    target: text("target").notNull(),
    user_id: text("user_id"),
    context: text("context"),
    code_hash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    max_attempts: integer("max_attempts").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
    created_at: text("created_at").notNull(),
    /** HMAC of the e-mailed link token (magic link, password reset); NULL for typed-only codes. */
    link_hash: text("link_hash"),
  },
  (t) => [
    index("otp_codes_target").on(t.purpose, t.target, t.used_at),
    index("otp_codes_user").on(t.user_id, t.purpose),
  ],
);

export const outboxMessages = sqliteTable(
  "outbox_messages",
  {
    id: text("id").primaryKey(),
    to_address: text("to_address").notNull(),
    channel: text("channel").notNull(),
    purpose: text("purpose").notNull(),
    code: text("code"),
    link: text("link"),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    /** The HTML body of an e-mail (migration 0012); NULL for an SMS. */
    html: text("html"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("outbox_messages_to").on(t.to_address, t.id)],
);

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  owner_user_id: text("owner_user_id").notNull(),
  created_at: text("created_at").notNull(),
});

export const roles = sqliteTable("roles", {
  id: text("id").primaryKey(),
  org_id: text("org_id"),
  scope: text("scope", { enum: ["org", "site"] }).notNull(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  is_system: integer("is_system").notNull().default(0),
  permissions: text("permissions").notNull().default("[]"),
  created_at: text("created_at").notNull(),
});

export const orgMemberships = sqliteTable(
  "org_memberships",
  {
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.org_id, t.user_id] }), index("org_memberships_user").on(t.user_id)],
);

export const siteMemberships = sqliteTable(
  "site_memberships",
  {
    site_id: text("site_id").notNull(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    org_id: text("org_id"),
    role: text("role").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.user_id] }), index("site_memberships_user").on(t.user_id)],
);

/**
 * Site memberships a `transfer` acceptance ended (issue 19, migration 0003), kept only so that an
 * acceptance the site registry refuses can put them back when the transfer reopens.
 */
export const transferEndedSiteMemberships = sqliteTable(
  "transfer_ended_site_memberships",
  {
    transfer_id: text("transfer_id").notNull(),
    site_id: text("site_id").notNull(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    org_id: text("org_id"),
    role: text("role").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.transfer_id, t.user_id] })],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    site_id: text("site_id"),
    scope: text("scope", { enum: ["org", "site"] }).notNull(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    token_hash: text("token_hash").notNull().unique(),
    invited_by: text("invited_by").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    accepted_at: text("accepted_at"),
    revoked_at: text("revoked_at"),
  },
  (t) => [
    index("invitations_org").on(t.org_id, t.accepted_at, t.revoked_at),
    index("invitations_site").on(t.site_id),
  ],
);

export const transfers = sqliteTable(
  "transfers",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    from_org_id: text("from_org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    to_org_id: text("to_org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["transfer", "share"] }).notNull(),
    share_role: text("share_role"),
    status: text("status", { enum: ["pending", "accepted", "rejected", "cancelled", "expired"] }).notNull(),
    created_by: text("created_by").notNull(),
    decided_by: text("decided_by"),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    decided_at: text("decided_at"),
  },
  (t) => [
    index("transfers_to").on(t.to_org_id, t.status),
    index("transfers_from").on(t.from_org_id, t.status),
  ],
);

/**
 * The account's and the organization's security events (issue 18, beyond the spec): append-only (a
 * trigger refuses UPDATE), one subject per row (`user_id` or `org_id`, a CHECK in SQL), the client's
 * network as a /24 or /48 prefix and its user agent as "browser on OS". Written by src/identity/events/events.ts.
 */
export const securityEvents = sqliteTable(
  "security_events",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    org_id: text("org_id").references(() => orgs.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    method: text("method"),
    actor_user_id: text("actor_user_id"),
    target: text("target"),
    detail: text("detail"),
    ip_prefix: text("ip_prefix"),
    user_agent: text("user_agent"),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    index("security_events_user").on(t.user_id, t.id),
    index("security_events_org").on(t.org_id, t.id),
    index("security_events_created").on(t.created_at),
  ],
);

/** Issue 24 §1 (migration 0007): an organization's OpenID provider (src/identity/sso/). */
export const orgSso = sqliteTable("org_sso", {
  org_id: text("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  config_id: text("config_id").notNull(),
  issuer: text("issuer").notNull(),
  client_id: text("client_id").notNull(),
  client_secret_sealed: text("client_secret_sealed").notNull(),
  enforced: integer("enforced").notNull().default(0),
  allow_passwords: integer("allow_passwords").notNull().default(1),
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
});

export const ssoDomains = sqliteTable(
  "sso_domains",
  {
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    verified_at: text("verified_at"),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.org_id, t.domain] })],
);

export const ssoLogins = sqliteTable("sso_logins", {
  state_hash: text("state_hash").primaryKey(),
  org_id: text("org_id")
    .notNull()
    .references(() => orgs.id, { onDelete: "cascade" }),
  config_id: text("config_id").notNull(),
  browser_hash: text("browser_hash").notNull(),
  code_verifier: text("code_verifier").notNull(),
  nonce: text("nonce").notNull(),
  created_at: text("created_at").notNull(),
  expires_at: text("expires_at").notNull(),
  used_at: text("used_at"),
});

export const ssoIdentities = sqliteTable(
  "sso_identities",
  {
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.org_id, t.subject] }), index("sso_identities_user").on(t.user_id)],
);

export const ssoPending = sqliteTable("sso_pending", {
  token_hash: text("token_hash").primaryKey(),
  kind: text("kind", { enum: ["register", "link"] }).notNull(),
  org_id: text("org_id")
    .notNull()
    .references(() => orgs.id, { onDelete: "cascade" }),
  config_id: text("config_id").notNull(),
  subject: text("subject").notNull(),
  email: text("email").notNull(),
  name: text("name"),
  user_id: text("user_id"),
  amr: text("amr"),
  created_at: text("created_at").notNull(),
  expires_at: text("expires_at").notNull(),
  used_at: text("used_at"),
});

export const ssoSessions = sqliteTable(
  "sso_sessions",
  {
    family_id: text("family_id").primaryKey(),
    org_id: text("org_id").notNull(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    config_id: text("config_id").notNull(),
    amr: text("amr"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("sso_sessions_org").on(t.org_id)],
);

export const ssoBreakGlass = sqliteTable(
  "sso_break_glass",
  {
    family_id: text("family_id").notNull(),
    org_id: text("org_id").notNull(),
    user_id: text("user_id").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.family_id, t.org_id] })],
);

/**
 * Issue 24 §2: an account's deletion. Present while pending (the grace period, `erase_after`) and after
 * the erasure (`erased_at`); a cancelled request leaves no row.
 */
export const accountDeletions = sqliteTable(
  "account_deletions",
  {
    user_id: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    requested_at: text("requested_at").notNull(),
    erase_after: text("erase_after").notNull(),
    erased_at: text("erased_at"),
    content_notified_at: text("content_notified_at"),
  },
  (t) => [index("account_deletions_due").on(t.erased_at, t.erase_after)],
);

/**
 * A membership removed or its role changed (the credential rule, migration 0009): written by triggers on
 * `org_memberships` and `site_memberships`; delivered (content ends the person's keys and webhooks where
 * they no longer hold `integrations`, the owners are told) and marked `delivered_at`.
 */
export const memberGrantEndings = sqliteTable(
  "member_grant_endings",
  {
    user_id: text("user_id").notNull(),
    org_id: text("org_id"),
    site_id: text("site_id"),
    ended_at: text("ended_at").notNull(),
    delivered_at: text("delivered_at"),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("member_grant_endings_pending").on(t.delivered_at, t.user_id)],
);

/**
 * The one-click undo of a change to an organization's SSO configuration (the credential rule, migration 0010): single
 * use (`used_at`, claimed with a random `used_by`), 7 days, bound to the configuration that change wrote.
 */
export const ssoUndos = sqliteTable(
  "sso_undos",
  {
    token_hash: text("token_hash").primaryKey(),
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    config_id: text("config_id").notNull(),
    updated_at: text("updated_at").notNull(),
    before_json: text("before_json"),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
    used_by: text("used_by"),
  },
  (t) => [index("sso_undos_org").on(t.org_id)],
);

/** OAuth clients of MCP agents (issue 37, migration 0013): metadata documents and RFC 7591 registrations. */
export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["metadata_document", "registered"] }).notNull(),
  name: text("name").notNull(),
  client_uri: text("client_uri"),
  logo_uri: text("logo_uri"),
  /** JSON array of the exact redirect URIs. */
  redirect_uris: text("redirect_uris").notNull(),
  token_endpoint_auth_method: text("token_endpoint_auth_method", {
    enum: ["none", "client_secret_post", "client_secret_basic"],
  })
    .notNull()
    .default("none"),
  secret_hash: text("secret_hash"),
  metadata_json: text("metadata_json").notNull(),
  fetched_at: text("fetched_at"),
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
});

/** A consent in progress (issue 37): the validated authorization request, bound to the person; single use. */
export const oauthConsents = sqliteTable(
  "oauth_consents",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    client_id: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    redirect_uri: text("redirect_uri").notNull(),
    state: text("state"),
    code_challenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    scope: text("scope").notNull(),
    csrf_hash: text("csrf_hash").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    decided_at: text("decided_at"),
  },
  (t) => [index("oauth_consents_user").on(t.user_id)],
);

/** An agent's grant (issue 37): a person's approval of a client on a site with scopes; the credential. */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    client_id: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    site_id: text("site_id").notNull(),
    org_id: text("org_id").notNull(),
    /** Space-separated key scopes the person approved. */
    scope: text("scope").notNull(),
    resource: text("resource").notNull(),
    created_at: text("created_at").notNull(),
    last_used_at: text("last_used_at"),
    revoked_at: text("revoked_at"),
    revoked_reason: text("revoked_reason"),
    revoked_by: text("revoked_by"),
  },
  (t) => [
    index("oauth_grants_user").on(t.user_id, t.revoked_at),
    index("oauth_grants_site").on(t.site_id, t.revoked_at),
  ],
);

/** Authorization codes of a grant (hash only; 60 s, single use). */
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    code_hash: text("code_hash").primaryKey(),
    grant_id: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    client_id: text("client_id").notNull(),
    redirect_uri: text("redirect_uri").notNull(),
    code_challenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
  },
  (t) => [index("oauth_codes_grant").on(t.grant_id)],
);

/** Refresh tokens of a grant (hash only), rotated on every use; a rotated one presented again revokes the grant. */
export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    token_hash: text("token_hash").primaryKey(),
    grant_id: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    rotated_at: text("rotated_at"),
  },
  (t) => [index("oauth_refresh_tokens_grant").on(t.grant_id)],
);
