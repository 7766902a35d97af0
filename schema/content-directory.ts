/**
 * The content directory's tables (migrations/content-directory): which group database holds each site, and
 * an API key's site by its hash (docs/decisions/site-groups.md). Only the content worker imports this file;
 * src/content/core/directory-store.ts is the one module that queries it.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const siteGroups = sqliteTable(
  "site_groups",
  {
    site_id: text("site_id").primaryKey(),
    slug: text("slug").notNull(),
    group_name: text("group_name").notNull(),
    /** Moves by one on every switch of the site's group. */
    version: integer("version").notNull().default(1),
    /** While a move copies: the group the site goes to (its writes answer 503 meanwhile). */
    moving_to: text("moving_to"),
    placed_at: text("placed_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [index("site_groups_group").on(t.group_name), index("site_groups_slug").on(t.slug, t.updated_at)],
);

export const keySites = sqliteTable(
  "key_sites",
  {
    key_hash: text("key_hash").primaryKey(),
    site_id: text("site_id").notNull(),
  },
  (t) => [index("key_sites_site").on(t.site_id)],
);
