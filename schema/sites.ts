/**
 * The sites database's tables: the source of their shapes. Row types are `$inferSelect` of these
 * tables, and property names are the SQL column names so that a row read with a raw D1 statement has
 * exactly that type. Migrations (migrations/sites/*.sql, what wrangler applies) must agree column by
 * column; test/gateway/schema-matches-migrations.unit.test.ts enforces it. Queries are in the store
 * modules of src/sites (src/sites/site/store.ts first) and go through drizzle's query builder; the
 * `INSERT … SELECT` guards, writes chained on `changes()`, keyset listings and JSON aggregates stay raw
 * SQL (docs/decisions/data-access.md). Only the sites worker imports this file.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const sites = sqliteTable(
  "sites",
  {
    id: text("id").primaryKey(),
    org_id: text("org_id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    primary_domain: text("primary_domain"),
    /** JSON array of hosts. */
    aliases: text("aliases").notNull().default("[]"),
    default_language: text("default_language").notNull().default("en"),
    /** JSON array of language tags; always contains default_language. */
    languages: text("languages").notNull().default('["en"]'),
    theme: text("theme"),
    status: text("status").notNull().default("active"),
    status_reason: text("status_reason"),
    status_changed_at: text("status_changed_at"),
    previous_status: text("previous_status"),
    /** JSON document; legacy rows may hold something that is not an object (read as unreadable). */
    settings: text("settings").notNull().default("{}"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [index("sites_org_status").on(t.org_id, t.status)],
);

export const siteHosts = sqliteTable(
  "site_hosts",
  {
    host: text("host").primaryKey(),
    site_id: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["primary", "alias"] }).notNull(),
    /** When the host was proved (TXT `_platform-verify.<host>` or DNS without wildcard); null: not served. */
    verified_at: text("verified_at"),
    /** A proved host whose proof the sweep no longer sees: since when (migration 0006); null: seen. */
    proof_missing_since: text("proof_missing_since"),
    /** When the host stopped being served because its proof stayed missing past the grace period. */
    proof_lost_at: text("proof_lost_at"),
  },
  (t) => [index("site_hosts_site").on(t.site_id)],
);

/** Hosts a site held unverified and lost to another site's verified claim (migration 0005). */
export const domainLosses = sqliteTable(
  "domain_losses",
  {
    site_id: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    host: text("host").notNull(),
    taken_by_site_id: text("taken_by_site_id").notNull(),
    lost_at: text("lost_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.host] }), index("domain_losses_lost_at").on(t.lost_at)],
);

export const orgPlans = sqliteTable("org_plans", {
  org_id: text("org_id").primaryKey(),
  plan: text("plan").notNull().default("default"),
  site_limit: integer("site_limit").notNull(),
  updated_at: text("updated_at").notNull(),
});

export const siteShares = sqliteTable(
  "site_shares",
  {
    site_id: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    org_id: text("org_id").notNull(),
    role: text("role").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.org_id] }), index("site_shares_org").on(t.org_id)],
);

/** Outbox of full-page cache purges (src/sites/core/page-cache.ts). */
export const pagePurges = sqliteTable(
  "page_purges",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    /** JSON array of hosts to purge. */
    hosts_json: text("hosts_json").notNull(),
    reason: text("reason").notNull(),
    attempts: integer("attempts").notNull().default(0),
    last_error: text("last_error"),
    next_attempt_at: text("next_attempt_at").notNull(),
    gave_up_at: text("gave_up_at"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("page_purges_due").on(t.gave_up_at, t.next_attempt_at)],
);

/** Development and tests: outbound effects recorded instead of sent (DEV_OUTBOX=true). */
export const outboundEffects = sqliteTable(
  "outbound_effects",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    site_id: text("site_id").notNull(),
    payload_json: text("payload_json").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("outbound_effects_site").on(t.site_id, t.kind, t.created_at)],
);

/**
 * Audit trail of the operator console (migrations/sites/0004, 0007): effective lifecycle transitions, purges
 * and moves of a site's content between content groups, with the actor. The same migration adds the expression index `sites_id_key` on `sites` (the console's
 * keyset order, src/sites/operator/id-order.ts).
 */
export const siteAudit = sqliteTable(
  "site_audit",
  {
    id: text("id").primaryKey(),
    /** group_move and group_move_rollback: migration 0007 (issue 38). */
    action: text("action", {
      enum: ["deactivate", "archive", "restore", "purge", "group_move", "group_move_rollback"],
    }).notNull(),
    site_id: text("site_id").notNull(),
    site_slug: text("site_slug").notNull(),
    org_id: text("org_id").notNull(),
    from_status: text("from_status").notNull(),
    /** null for a purge. */
    to_status: text("to_status"),
    /** JSON array of the site's hosts. */
    hosts_json: text("hosts_json").notNull(),
    actor_user_id: text("actor_user_id"),
    actor_capability: text("actor_capability").notNull(),
    reason: text("reason"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("site_audit_site").on(t.site_id, t.created_at)],
);

/** Platform and organization themes (src/sites/themes/); `package_json` is the theme package. */
export const themes = sqliteTable(
  "themes",
  {
    id: text("id").primaryKey(),
    scope: text("scope", { enum: ["platform", "org", "backup"] }).notNull(),
    /** The owner organization of an org theme; null for platform themes. */
    org_id: text("org_id"),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    version: text("version").notNull(),
    description: text("description"),
    preview_url: text("preview_url"),
    /** JSON: the visual allowlist of settings (see src/sites/themes/package.ts). */
    package_json: text("package_json").notNull(),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("themes_owner_slug").on(t.scope, sql`COALESCE(${t.org_id}, '')`, t.slug),
    index("themes_org").on(t.org_id, t.scope),
  ],
);

/** Per-site undo stack of looks kept before each theme apply (at most 10 per site). */
export const themeSnapshots = sqliteTable(
  "theme_snapshots",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    theme_id: text("theme_id").notNull(),
    /** JSON: the look before the apply (see src/sites/themes/package.ts `LookSnapshot`). */
    look_json: text("look_json").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("theme_snapshots_site_seq").on(t.site_id, t.seq)],
);
