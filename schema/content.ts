/**
 * The content database's tables: the source of their shapes. Row types are `$inferSelect` of these
 * tables, and property names are the SQL column names so that a row read with a raw D1 statement has
 * exactly that type. Migrations (migrations/content/*.sql, what wrangler applies) must agree column by
 * column; test/gateway/schema-matches-migrations.unit.test.ts enforces it. The FTS5 table and its
 * triggers live only in SQL. In the store modules (src/content/store/*.ts, src/content/effects/pending.ts)
 * plain reads and inserts go through drizzle, while guarded UPDATEs, upserts, keyset listings and
 * batches stay prepared SQL, whose exact text matters. Only the content worker imports this file.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const sites = sqliteTable("sites", {
  id: text("id").primaryKey(),
  org_id: text("org_id").notNull(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  default_language: text("default_language").notNull(),
  status: text("status").notNull(),
  primary_domain: text("primary_domain"),
  updated_at: text("updated_at").notNull(),
  synced_at: text("synced_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["secret", "public"] }).notNull(),
    key_hash: text("key_hash").notNull().unique(),
    key_prefix: text("key_prefix").notNull(),
    scopes_json: text("scopes_json").notNull(),
    allowed_origins_json: text("allowed_origins_json").notNull().default("[]"),
    created_by: text("created_by"),
    created_at: text("created_at").notNull(),
    revoked_at: text("revoked_at"),
    revoked_by: text("revoked_by"),
  },
  (t) => [index("api_keys_site").on(t.site_id, t.created_at)],
);

export const postTypes = sqliteTable(
  "post_types",
  {
    site_id: text("site_id").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    is_public: integer("is_public").notNull().default(1),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.slug] })],
);

export const posts = sqliteTable(
  "posts",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    slug: text("slug").notNull(),
    language: text("language").notNull(),
    post_type: text("post_type").notNull().default("post"),
    title: text("title").notNull(),
    summary: text("summary"),
    blocks_json: text("blocks_json"),
    status: text("status", { enum: ["draft", "scheduled", "published", "archived", "deleted"] }).notNull(),
    access: text("access", { enum: ["public", "restricted"] })
      .notNull()
      .default("public"),
    published_at: text("published_at"),
    author_slug: text("author_slug"),
    author_user_id: text("author_user_id"),
    featured_image_id: text("featured_image_id"),
    seo_json: text("seo_json").notNull().default("{}"),
    created_by_key_id: text("created_by_key_id"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    /** Bumped by every update; updates check it (optimistic concurrency, migration 0003). */
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    uniqueIndex("posts_site_slug_language").on(t.site_id, t.slug, t.language),
    index("posts_public_feed").on(t.site_id, t.published_at, t.id),
    index("posts_site_updated").on(t.site_id, t.updated_at),
    index("posts_site_id_desc").on(t.site_id, t.id),
    index("posts_scheduled_due").on(t.published_at).where(sql`status = 'scheduled'`),
  ],
);

export const media = sqliteTable(
  "media",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    r2_key: text("r2_key").notNull().unique(),
    content_type: text("content_type").notNull(),
    size_bytes: integer("size_bytes").notNull(),
    status: text("status", { enum: ["processing", "ready", "deleted"] }).notNull(),
    source_url: text("source_url"),
    purpose: text("purpose"),
    folder_id: text("folder_id"),
    created_at: text("created_at").notNull(),
    deleted_at: text("deleted_at"),
    variants_json: text("variants_json").notNull().default("[]"),
  },
  (t) => [
    index("media_site_created").on(t.site_id, t.created_at),
    index("media_site_folder").on(t.site_id, t.folder_id, t.created_at),
  ],
);

export const mediaTags = sqliteTable(
  "media_tags",
  {
    media_id: text("media_id").notNull(),
    tag_id: text("tag_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.media_id, t.tag_id] }), index("media_tags_tag").on(t.tag_id, t.media_id)],
);

export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    key_id: text("key_id").notNull(),
    idempotency_key: text("idempotency_key").notNull(),
    request_hash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    response_json: text("response_json").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key_id, t.idempotency_key] }),
    index("idempotency_expiry").on(t.expires_at),
  ],
);

export const outboundEffects = sqliteTable(
  "outbound_effects",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    site_id: text("site_id").notNull(),
    subject_id: text("subject_id"),
    payload_json: text("payload_json").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("outbound_effects_site").on(t.site_id, t.kind, t.created_at)],
);

export const importLines = sqliteTable(
  "import_lines",
  {
    site_id: text("site_id").notNull(),
    line_hash: text("line_hash").notNull(),
    post_id: text("post_id").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.line_hash] })],
);

/** Outbox of post side effects (event, cache purge, IndexNow), written in the batch of the change. */
export const postEffects = sqliteTable(
  "post_effects",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    post_id: text("post_id").notNull(),
    kind: text("kind", { enum: ["event", "cache_purge", "indexnow"] }).notNull(),
    payload_json: text("payload_json").notNull(),
    created_at: text("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("post_effects_created").on(t.created_at)],
);

/** Signed webhooks of a site (migration 0007); the secret only encrypted (`src/content/webhooks/secret-box.ts`). */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    url: text("url").notNull(),
    events_json: text("events_json").notNull(),
    description: text("description"),
    secret_encrypted: text("secret_encrypted").notNull(),
    created_by: text("created_by"),
    created_at: text("created_at").notNull(),
    secret_rotated_at: text("secret_rotated_at"),
  },
  (t) => [index("webhooks_site").on(t.site_id, t.created_at)],
);

/** One delivery per (event, webhook) with its attempt log (migration 0007). */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhook_id: text("webhook_id").notNull(),
    site_id: text("site_id").notNull(),
    event_id: text("event_id").notNull(),
    event_type: text("event_type").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    attempts_json: text("attempts_json").notNull().default("[]"),
    last_status_code: integer("last_status_code"),
    last_error: text("last_error"),
    next_attempt_at: text("next_attempt_at"),
    locked_until: text("locked_until"),
    created_at: text("created_at").notNull(),
    last_attempt_at: text("last_attempt_at"),
    delivered_at: text("delivered_at"),
    failed_at: text("failed_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.webhook_id, t.event_id),
    index("webhook_deliveries_log").on(t.webhook_id, t.id),
    index("webhook_deliveries_created").on(t.created_at),
  ],
);
