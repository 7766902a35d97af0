/**
 * Drizzle description of the content database (mirrors migrations/content/*.sql, which is the source
 * applied by wrangler; the FTS5 table and its triggers live only in SQL).
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const sites = sqliteTable("sites", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  defaultLanguage: text("default_language").notNull(),
  status: text("status").notNull(),
  primaryDomain: text("primary_domain"),
  updatedAt: text("updated_at").notNull(),
  syncedAt: text("synced_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["secret", "public"] }).notNull(),
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    scopesJson: text("scopes_json").notNull(),
    allowedOriginsJson: text("allowed_origins_json").notNull().default("[]"),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
    revokedBy: text("revoked_by"),
  },
  (t) => [index("api_keys_site").on(t.siteId, t.createdAt)],
);

export const postTypes = sqliteTable(
  "post_types",
  {
    siteId: text("site_id").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    isPublic: integer("is_public").notNull().default(1),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.slug] })],
);

export const posts = sqliteTable(
  "posts",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    slug: text("slug").notNull(),
    language: text("language").notNull(),
    postType: text("post_type").notNull().default("post"),
    title: text("title").notNull(),
    summary: text("summary"),
    blocksJson: text("blocks_json"),
    status: text("status", { enum: ["draft", "scheduled", "published", "archived", "deleted"] }).notNull(),
    access: text("access", { enum: ["public", "restricted"] })
      .notNull()
      .default("public"),
    publishedAt: text("published_at"),
    authorSlug: text("author_slug"),
    authorUserId: text("author_user_id"),
    featuredImageId: text("featured_image_id"),
    seoJson: text("seo_json").notNull().default("{}"),
    createdByKeyId: text("created_by_key_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Bumped by every update; updates check it (optimistic concurrency, migration 0003). */
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    uniqueIndex("posts_site_slug_language").on(t.siteId, t.slug, t.language),
    index("posts_public_feed").on(t.siteId, t.publishedAt, t.id),
    index("posts_site_updated").on(t.siteId, t.updatedAt),
    index("posts_site_id_desc").on(t.siteId, t.id),
  ],
);

export const media = sqliteTable(
  "media",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    r2Key: text("r2_key").notNull().unique(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    status: text("status", { enum: ["processing", "ready", "deleted"] }).notNull(),
    sourceUrl: text("source_url"),
    purpose: text("purpose"),
    folderId: text("folder_id"),
    createdAt: text("created_at").notNull(),
    deletedAt: text("deleted_at"),
    variantsJson: text("variants_json").notNull().default("[]"),
  },
  (t) => [
    index("media_site_created").on(t.siteId, t.createdAt),
    index("media_site_folder").on(t.siteId, t.folderId, t.createdAt),
  ],
);

export const mediaTags = sqliteTable(
  "media_tags",
  {
    mediaId: text("media_id").notNull(),
    tagId: text("tag_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.mediaId, t.tagId] }), index("media_tags_tag").on(t.tagId, t.mediaId)],
);

export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    keyId: text("key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    responseJson: text("response_json").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idempotencyKey] }), index("idempotency_expiry").on(t.expiresAt)],
);

export const outboundEffects = sqliteTable(
  "outbound_effects",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    siteId: text("site_id").notNull(),
    subjectId: text("subject_id"),
    payloadJson: text("payload_json").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("outbound_effects_site").on(t.siteId, t.kind, t.createdAt)],
);

export const importLines = sqliteTable(
  "import_lines",
  {
    siteId: text("site_id").notNull(),
    lineHash: text("line_hash").notNull(),
    postId: text("post_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.lineHash] })],
);

/** Outbox of post side effects (event, cache purge, IndexNow), written in the batch of the change. */
export const postEffects = sqliteTable(
  "post_effects",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    postId: text("post_id").notNull(),
    kind: text("kind", { enum: ["event", "cache_purge", "indexnow"] }).notNull(),
    payloadJson: text("payload_json").notNull(),
    createdAt: text("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("post_effects_created").on(t.createdAt)],
);
