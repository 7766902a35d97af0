/**
 * The content database's tables: the source of their shapes. Row types are `$inferSelect` of these
 * tables, and property names are the SQL column names so that a row read with a raw D1 statement has
 * exactly that type. Migrations (migrations/content/*.sql, what wrangler applies) must agree column by
 * column; test/gateway/schema-matches-migrations.unit.test.ts enforces it. The FTS5 table and its
 * triggers live only in SQL. In the store modules (the `store.ts` modules of src/content/<area>/, src/content/core/effects/pending.ts)
 * queries go through drizzle's builder; what it cannot say (FTS5, `INSERT … SELECT` guards, writes chained
 * on `changes()`, the `site_owner` view, `json_each` row sources) stays raw SQL through src/lib/sql.ts
 * (docs/decisions/data-access.md). Only the content worker imports this file.
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
  /** When the owner organization last changed (the push that changed it; migration 0008). */
  org_since: text("org_since"),
  /** When content learned the owner changed (NULL until it first changes; migration 0013). */
  org_changed_at: text("org_changed_at"),
  /**
   * Moves on every change of what a public read of the site shows (triggers of migration 0012, and each
   * projection push): part of the edge cache key of public post answers (src/content/posts/public-reads.ts).
   */
  content_version: integer("content_version").notNull().default(0),
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
    /** Organization the key is stamped for (set at insert by trigger, restamped after a transfer). */
    org_id: text("org_id"),
    /** Display name of the creator's byline (authorship context, migration 0010); null on older keys. */
    author_name: text("author_name"),
    /** Set when a transfer carried the key over to a new owner: refused until kept (migration 0013). */
    carried_over_at: text("carried_over_at"),
    /** The organization the key was carried over from. */
    carried_over_from: text("carried_over_from"),
    /** 1: a public key also serves reads sent without an Origin by a server, never a browser (migration 0021). */
    server_reads: integer("server_reads").notNull().default(0),
    /** The key's last widening (a scope, origin or server reads it did not have): when, by whom, what was added. */
    widened_at: text("widened_at"),
    widened_by: text("widened_by"),
    /** `{"scopes": [...], "allowed_origins": [...], "server_reads": bool}`: what that widening added. */
    widened_json: text("widened_json"),
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
    /** Set when the type is removed (its applet uninstalled); its posts are kept. */
    disabled_at: text("disabled_at"),
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
    /** Organization the post is stamped for (set at insert by trigger, restamped after a transfer). */
    org_id: text("org_id"),
    /** The author persona's display name, next to `author_slug` (migration 0010). */
    author_name: text("author_name"),
    /**
     * Structured fields, a JSON object or null (migration 0011): legal pages carry `secao` `legal`,
     * `documento_legal`, `ordem` and `gerador_hash` (the hash of the body the generator wrote).
     */
    fields: text("fields"),
    /**
     * Who created the post (migration 0020, issue 34): `key` or `person`, the key's id or the person's user
     * id, and its name then (the key's name, the person's display name; null when not recorded).
     */
    created_by_kind: text("created_by_kind", { enum: ["key", "person"] }),
    created_by_id: text("created_by_id"),
    created_by_name: text("created_by_name"),
    /** Who changed the post last (as `created_by_*`); null on posts not changed since migration 0020. */
    updated_by_kind: text("updated_by_kind", { enum: ["key", "person"] }),
    updated_by_id: text("updated_by_id"),
    updated_by_name: text("updated_by_name"),
    /** A draft its creator marked ready for review (1), cleared when published (migration 0020). */
    review_requested: integer("review_requested").notNull().default(0),
  },
  (t) => [
    uniqueIndex("posts_site_slug_language").on(t.site_id, t.slug, t.language),
    index("posts_public_feed").on(t.site_id, t.published_at, t.id),
    index("posts_site_updated").on(t.site_id, t.updated_at),
    index("posts_site_id_desc").on(t.site_id, t.id),
    index("posts_scheduled_due").on(t.published_at).where(sql`status = 'scheduled'`),
    index("posts_review_requested").on(t.site_id, t.id).where(sql`review_requested = 1`),
    index("posts_created_by_person").on(t.created_by_id).where(sql`created_by_kind = 'person'`),
    index("posts_updated_by_person").on(t.updated_by_id).where(sql`updated_by_kind = 'person'`),
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
    status: text("status", { enum: ["processing", "ready", "failed", "deleted"] }).notNull(),
    source_url: text("source_url"),
    purpose: text("purpose"),
    folder_id: text("folder_id"),
    created_at: text("created_at").notNull(),
    deleted_at: text("deleted_at"),
    variants_json: text("variants_json").notNull().default("[]"),
    /** Pixel size of the original (null until the variants consumer has read it, or an SVG without one). */
    width: integer("width"),
    height: integer("height"),
    /** Why variant generation ended `failed` (`undecodable`, `too_large`, `processing_failed`, `original_missing`). */
    failure_reason: text("failure_reason"),
    /** Organization the asset is stamped for (set at insert by trigger, restamped after a transfer). */
    org_id: text("org_id"),
    /** Issue 35 (migration 0022): the image's alt text and caption, null when not given. */
    alt: text("alt"),
    caption: text("caption"),
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
    /** The record's site (migration 0024; null in records written before it, found through their key). */
    site_id: text("site_id"),
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
    /** Retry schedule of a failed delivery (migration 0008): due time, last failure, when the cron gave up. */
    next_attempt_at: text("next_attempt_at"),
    last_error: text("last_error"),
    gave_up_at: text("gave_up_at"),
  },
  (t) => [index("post_effects_created").on(t.created_at)],
);

/** The newest ownership transfer content has applied per site (site-transferred consumer). */
export const siteTransfers = sqliteTable("site_transfers", {
  site_id: text("site_id").primaryKey(),
  transfer_id: text("transfer_id").notNull(),
  from_org_id: text("from_org_id").notNull(),
  to_org_id: text("to_org_id").notNull(),
  transferred_at: text("transferred_at").notNull(),
  applied_at: text("applied_at").notNull(),
});

/** One random salt per UTC day for visitor ids; deleted (with the day's visitor ids) once the day is over. */
export const analyticsSalts = sqliteTable("analytics_salts", {
  day: text("day").primaryKey(),
  salt: text("salt").notNull(),
  created_at: text("created_at").notNull(),
});

/** The day's visitor ids per path (hashes, never an IP or user agent); raw data, purged by the cron. */
export const analyticsVisitors = sqliteTable(
  "analytics_visitors",
  {
    site_id: text("site_id").notNull(),
    day: text("day").notNull(),
    visitor_id: text("visitor_id").notNull(),
    path: text("path").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.site_id, t.day, t.visitor_id, t.path] }),
    index("analytics_visitors_day").on(t.day),
  ],
);

/** Daily rollup of a site (UTC day): human views and unique visitors, bot hits apart. */
export const analyticsDaily = sqliteTable(
  "analytics_daily",
  {
    site_id: text("site_id").notNull(),
    day: text("day").notNull(),
    views: integer("views").notNull().default(0),
    visitors: integer("visitors").notNull().default(0),
    bot_views: integer("bot_views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.day] })],
);

/** Daily rollup per path: human views and unique visitors of the path. */
export const analyticsPathsDaily = sqliteTable(
  "analytics_paths_daily",
  {
    site_id: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    views: integer("views").notNull().default(0),
    visitors: integer("visitors").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.day, t.path] })],
);

/** Daily rollup per referring host (another site's host only, never the referring URL). */
export const analyticsReferrersDaily = sqliteTable(
  "analytics_referrers_daily",
  {
    site_id: text("site_id").notNull(),
    day: text("day").notNull(),
    referrer_host: text("referrer_host").notNull(),
    views: integer("views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.day, t.referrer_host] })],
);

/** The forms app's switch per site, from the site projection (migration 0005). */
export const formsAppState = sqliteTable("forms_app_state", {
  site_id: text("site_id").primaryKey(),
  enabled: integer("enabled").notNull().default(0),
  updated_at: text("updated_at").notNull(),
});

export const forms = sqliteTable(
  "forms",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    name: text("name").notNull(),
    fields_json: text("fields_json").notNull(),
    created_by: text("created_by").notNull(),
    created_at: text("created_at").notNull(),
    deleted_at: text("deleted_at"),
  },
  (t) => [index("forms_site").on(t.site_id, t.created_at)],
);

export const leads = sqliteTable(
  "leads",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    form_id: text("form_id").notNull(),
    status: text("status", { enum: ["clean", "spam"] }).notNull(),
    spam_reasons_json: text("spam_reasons_json").notNull().default("[]"),
    fields_json: text("fields_json").notNull(),
    content_hash: text("content_hash").notNull(),
    page_url: text("page_url"),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    index("leads_site_time").on(t.site_id, t.created_at, t.id),
    index("leads_site_status_time").on(t.site_id, t.status, t.created_at, t.id),
    index("leads_form_time").on(t.form_id, t.created_at, t.id),
    index("leads_form_duplicate").on(t.form_id, t.content_hash, t.created_at),
  ],
);

/** Ids of form tokens already used by a submission, until the token expires (single-use tokens). */
export const formTokenUses = sqliteTable(
  "form_token_uses",
  {
    token_id: text("token_id").primaryKey(),
    form_id: text("form_id").notNull(),
    expires_at: text("expires_at").notNull(),
  },
  (t) => [index("form_token_uses_expiry").on(t.expires_at)],
);

/** Audited reads of personal data (lead reads and exports); shaped for a general audit log. */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    site_id: text("site_id").notNull(),
    actor_type: text("actor_type", { enum: ["api_key", "person", "webhook"] }).notNull(),
    actor_id: text("actor_id").notNull(),
    actor_user_id: text("actor_user_id"),
    action: text("action").notNull(),
    outcome: text("outcome").notNull(),
    resource_type: text("resource_type").notNull(),
    resource_ids_json: text("resource_ids_json").notNull().default("[]"),
    details_json: text("details_json").notNull().default("{}"),
    item_count: integer("item_count").notNull().default(0),
    request_id: text("request_id"),
    client_ip: text("client_ip"),
    created_at: text("created_at").notNull(),
    completed_at: text("completed_at"),
  },
  (t) => [index("audit_events_site_time").on(t.site_id, t.created_at, t.id)],
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
    /** Organization the webhook is stamped for (set at insert by trigger, migration 0013). */
    org_id: text("org_id"),
    /** Set when a transfer carried the webhook over to a new owner: not delivered until kept. */
    carried_over_at: text("carried_over_at"),
    /** The organization the webhook was carried over from. */
    carried_over_from: text("carried_over_from"),
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

/** Author personas of a site (migration 0010): one per (site, user, display name), slug unique per site. */
export const authorPersonas = sqliteTable(
  "author_personas",
  {
    site_id: text("site_id").notNull(),
    slug: text("slug").notNull(),
    display_name: text("display_name").notNull(),
    user_id: text("user_id").notNull(),
    created_at: text("created_at").notNull(),
    /** Beyond the spec (issue 22): the author's bio and avatar (a media asset of the site). */
    bio: text("bio"),
    avatar_media_id: text("avatar_media_id"),
    /** The byline of the authorship context the persona was made from (its key finds it by this). */
    context_name: text("context_name"),
    updated_at: text("updated_at"),
  },
  (t) => [
    primaryKey({ columns: [t.site_id, t.slug] }),
    uniqueIndex("author_personas_context").on(t.site_id, t.user_id, t.context_name),
  ],
);

/**
 * Names of a site's categories and tags (issue 35, migration 0022): posts carry only slugs (in seo_json); a
 * term without a row, or with a null name, is named from its slug.
 */
export const taxonomyTerms = sqliteTable(
  "taxonomy_terms",
  {
    site_id: text("site_id").notNull(),
    kind: text("kind", { enum: ["category", "tag"] }).notNull(),
    slug: text("slug").notNull(),
    name: text("name"),
    description: text("description"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.site_id, t.kind, t.slug] })],
);

/** Media each post references (featured image, image blocks' media_id), kept by SQL triggers (migration 0010). */
export const postMediaRefs = sqliteTable(
  "post_media_refs",
  {
    post_id: text("post_id").notNull(),
    media_id: text("media_id").notNull(),
    site_id: text("site_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.post_id, t.media_id] }),
    index("post_media_refs_media").on(t.site_id, t.media_id),
  ],
);

/** A post's content as one change left it (issue 22): kept by SQL triggers (migration 0016), the newest 50 per post. */
export const postRevisions = sqliteTable(
  "post_revisions",
  {
    post_id: text("post_id").notNull(),
    revision: integer("revision").notNull(),
    site_id: text("site_id").notNull(),
    title: text("title").notNull(),
    summary: text("summary"),
    blocks_json: text("blocks_json"),
    seo_json: text("seo_json").notNull(),
    created_at: text("created_at").notNull(),
    /** Who made the revision (migration 0020): the post's `updated_by_*` as the change left it; null before. */
    made_by_kind: text("made_by_kind", { enum: ["key", "person"] }),
    made_by_id: text("made_by_id"),
    made_by_name: text("made_by_name"),
  },
  (t) => [
    primaryKey({ columns: [t.post_id, t.revision] }),
    index("post_revisions_site").on(t.site_id, t.post_id),
    index("post_revisions_made_by_person").on(t.made_by_id).where(sql`made_by_kind = 'person'`),
  ],
);

/**
 * A preview link (migration 0018, docs/decisions/previews.md): the SHA-256 of its token and what granted it.
 * It answers only while live, its post not deleted, its site active and owned by `org_id`, and the key
 * that made it live and stamped for that organization.
 */
export const previewLinks = sqliteTable(
  "preview_links",
  {
    id: text("id").primaryKey(),
    token_hash: text("token_hash").notNull().unique(),
    site_id: text("site_id").notNull(),
    post_id: text("post_id").notNull(),
    /** The site's owner when the link was made: a transfer ends it. */
    org_id: text("org_id").notNull(),
    /** The API key that made it. */
    key_id: text("key_id"),
    /** The person who made it from a session (none yet; such a link answers nothing until built). */
    user_id: text("user_id"),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    /** Set when ended (DELETE …/preview, a transfer, the site no longer active); purged after expiry. */
    ended_at: text("ended_at"),
  },
  (t) => [
    index("preview_links_post").on(t.post_id),
    index("preview_links_site").on(t.site_id),
    index("preview_links_expiry").on(t.expires_at),
  ],
);

/**
 * A person's grant on a site that ended (the credential rule, migration 0017): their keys and webhooks ended with it,
 * and for 30 s after `recorded_at` their edge headers administer no integrations of the site.
 */
export const endedMemberGrants = sqliteTable(
  "ended_member_grants",
  {
    user_id: text("user_id").notNull(),
    scope: text("scope", { enum: ["site", "org"] }).notNull(),
    org_id: text("org_id"),
    site_id: text("site_id"),
    except_site_ids_json: text("except_site_ids_json").notNull().default("[]"),
    ended_at: text("ended_at").notNull(),
    recorded_at: text("recorded_at").notNull(),
  },
  (t) => [index("ended_member_grants_user").on(t.user_id, t.recorded_at)],
);

/**
 * A site's fence in one group while it moves between groups (migration 0023, issue 38,
 * docs/decisions/site-groups.md "Moving a site"): BEFORE triggers on every table of a site's rows refuse its
 * writes (`site_fenced`) while the row exists with `purging = 0`. `incoming` in the group it goes to, until the
 * switch; `moving` in the group it leaves during the copy, `moved` there after the switch (for good: an isolate
 * that still routes there cannot write). The mover's batches open it with `purging` (set by their first
 * statement, cleared by their last).
 */
export const siteFences = sqliteTable("site_fences", {
  site_id: text("site_id").primaryKey(),
  state: text("state", { enum: ["incoming", "moving", "moved"] }).notNull(),
  /** The other group of the move: where the site goes (moving, moved) or comes from (incoming). */
  other_group: text("other_group").notNull(),
  purging: integer("purging").notNull().default(0),
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
});
