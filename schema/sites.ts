/** Drizzle description of the sites database (the SQL of record is migrations/sites). */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const sites = sqliteTable(
  "sites",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    primaryDomain: text("primary_domain"),
    /** JSON array of hosts. */
    aliases: text("aliases").notNull().default("[]"),
    defaultLanguage: text("default_language").notNull().default("en"),
    /** JSON array of language tags; always contains default_language. */
    languages: text("languages").notNull().default('["en"]'),
    theme: text("theme"),
    status: text("status").notNull().default("active"),
    statusReason: text("status_reason"),
    statusChangedAt: text("status_changed_at"),
    previousStatus: text("previous_status"),
    /** JSON document; legacy rows may hold something that is not an object (read as unreadable). */
    settings: text("settings").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("sites_org_status").on(t.orgId, t.status)],
);

export const siteHosts = sqliteTable(
  "site_hosts",
  {
    host: text("host").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["primary", "alias"] }).notNull(),
  },
  (t) => [index("site_hosts_site").on(t.siteId)],
);

export const orgPlans = sqliteTable("org_plans", {
  orgId: text("org_id").primaryKey(),
  plan: text("plan").notNull().default("default"),
  siteLimit: integer("site_limit").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const siteShares = sqliteTable(
  "site_shares",
  {
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull(),
    role: text("role").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.orgId] }), index("site_shares_org").on(t.orgId)],
);
