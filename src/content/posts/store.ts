/**
 * Post storage: rows, the public and authenticated listings (keyset), and lookups by id and slug. Reads by
 * id and slug, the export page, the due scheduled posts, the insert, the revision-guarded update and the
 * publish, archive and delete updates go through drizzle's query builder; the listings (FTS5 and
 * `json_each` filters, the featured image's subquery), the single-statement edit (`RETURNING`, an If-Match
 * list of revisions) and the outbox row chained on `changes()` stay raw SQL.
 */
import { and, asc, eq, getTableColumns, gt, inArray, lte, ne, sql as sqlFragment } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { media, posts, postTypes } from "../../../schema/content";
import type { Computed } from "../../lib/rows";
import { all, batch, inJsonEach, prepared, type Query, query } from "../../lib/sql";
import { notFenced } from "../groups/fence-store";
import { MEDIA_IMAGE_COLUMNS, MEDIA_IMAGE_JSON, type MediaImageRow } from "../media/media-image";

/** A whole post row; `revision` is the optimistic-concurrency counter every update checks and bumps. */
/** A post as the service handles it; `org_id` (the organization stamp) is SQL's: set by trigger, restamped by the transfer consumer. */
export type PostRow = Omit<typeof posts.$inferSelect, "org_id"> & {
  /**
   * Read-only, selected by the public reads and listings (`FEATURED_MEDIA_SQL`): the featured image's
   * media row as JSON (`MediaImageRow`), null when there is none or it is deleted; never written.
   */
  featured_media?: string | null;
};
export type PostStatus = PostRow["status"];

/**
 * Columns an update may change; `id`, `site_id`, `author_user_id`, `created_by_key_id`, `created_by_*` and
 * `created_at` are set once.
 */
const EDITABLE_FIELDS = [
  "slug",
  "language",
  "post_type",
  "title",
  "summary",
  "blocks_json",
  "status",
  "access",
  "published_at",
  "author_slug",
  "author_name",
  "featured_image_id",
  "seo_json",
  "fields",
  "updated_at",
  "updated_by_kind",
  "updated_by_id",
  "updated_by_name",
  "review_requested",
] as const satisfies readonly (keyof PostRow)[];

const INSERT_FIELDS = [
  "id",
  "site_id",
  ...EDITABLE_FIELDS,
  "author_user_id",
  "created_by_key_id",
  "created_by_kind",
  "created_by_id",
  "created_by_name",
  "created_at",
] as const satisfies readonly (keyof PostRow)[];

const COLUMNS = `${INSERT_FIELDS.join(", ")}, revision`;
const { org_id: _orgId, ...postSelect } = getTableColumns(posts);
/** The same columns for the query builder (other post stores' selects too): every column but `org_id` (SQL's). */
export const POST_SELECT = postSelect;
/** Every column of a `PostRow`, for other post stores' SELECTs. */
export const POST_COLUMNS = COLUMNS;

/** The featured image's media row (`MediaImageRow` of media/image-view.ts) as JSON, for a post `p`. */
export const FEATURED_MEDIA_SQL = `(SELECT ${MEDIA_IMAGE_JSON} FROM media m
  WHERE m.id = p.featured_image_id AND m.site_id = p.site_id AND m.status != 'deleted') AS featured_media`;

/** Listing columns: everything but the body, and the featured image's media row. */
export const SUMMARY_COLUMNS = `${[...INSERT_FIELDS, "revision"]
  .map((field) => (field === "blocks_json" ? "NULL AS blocks_json" : `p.${field}`))
  .join(", ")}, ${FEATURED_MEDIA_SQL}`;

/**
 * The status a reader sees: a scheduled post whose time has come is published (no job has to flip it).
 * Writes store `scheduled` for any published post dated in the future.
 */
export function effectiveStatus(row: Pick<PostRow, "status" | "published_at">, now: string): PostStatus {
  if (row.status === "scheduled" && row.published_at !== null && row.published_at <= now) return "published";
  return row.status;
}

/**
 * The `updated_at` a reader sees: a scheduled post that has come due changed at its publication moment
 * (when it went live), so incremental sync (`since`) shows it going live even before the cron stores it.
 */
export function readUpdatedAt(
  row: Pick<PostRow, "status" | "published_at" | "updated_at">,
  now: string,
): string {
  if (
    effectiveStatus(row, now) === "published" &&
    row.status === "scheduled" &&
    row.published_at! > row.updated_at
  )
    return row.published_at!;
  return row.updated_at;
}

/** `readUpdatedAt` in SQL (one parameter: now). */
const READ_UPDATED_AT = `(CASE WHEN p.status = 'scheduled' AND p.published_at <= ? THEN MAX(p.updated_at, p.published_at) ELSE p.updated_at END)`;

/** Public visibility: published (or scheduled and due), not restricted, of a public post type. */
export function isPublic(row: PostRow, now: string, publicTypes: ReadonlySet<string>): boolean {
  return (
    effectiveStatus(row, now) === "published" && row.access === "public" && publicTypes.has(row.post_type)
  );
}

export const PUBLIC_WHERE = `p.site_id = ? AND p.status IN ('published', 'scheduled') AND p.access = 'public'
  AND p.published_at <= ? AND p.post_type IN (SELECT slug FROM post_types WHERE site_id = p.site_id AND is_public = 1)`;

/**
 * PUBLIC_WHERE for one post by id or slug. The date bound is written `+p.published_at` so SQLite cannot use
 * it to pick the feed index (site_id, published_at): without statistics it did, and scanned every published
 * post of the site for one slug instead of the (site_id, slug, language) key (a test reads the plan).
 */
export const PUBLIC_ONE_WHERE = PUBLIC_WHERE.replace("p.published_at <= ?", "+p.published_at <= ?");

/** The WHERE of one public post by id or slug (optionally in one language), and its parameters. */
export function publicPostMatch(
  siteId: string,
  reference: PublicReference,
  now: string,
): [string, unknown[]] {
  const [match, params] =
    "id" in reference
      ? ["p.id = ?", [reference.id]]
      : reference.language
        ? ["p.slug = ? AND p.language = ?", [reference.slug, reference.language]]
        : ["p.slug = ?", [reference.slug]];
  return [`${PUBLIC_ONE_WHERE} AND ${match}`, [siteId, now, ...params]];
}

/** The fields `fields` of `row`, and no other. */
function pick<K extends keyof PostRow>(row: PostRow, fields: readonly K[]): Pick<PostRow, K> {
  const picked: Partial<Pick<PostRow, K>> = {};
  for (const field of fields) picked[field] = row[field];
  return picked as Pick<PostRow, K>;
}

/** Inserts `row`'s `INSERT_FIELDS`; its revision starts at the column's default (0), `org_id` by trigger. */
export function insertPostStatement(db: D1Database, row: PostRow): D1PreparedStatement {
  return prepared(db, drizzle(db).insert(posts).values(pick(row, INSERT_FIELDS)));
}

/**
 * Writes every editable column of `row`, only if the stored revision is still `row.revision` (the one the
 * caller read): `meta.changes` is 0 when a concurrent edit came first, and the caller re-reads and retries.
 */
export function updatePostStatement(db: D1Database, row: PostRow): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .update(posts)
      .set({ ...pick(row, EDITABLE_FIELDS), revision: sqlFragment`${posts.revision} + 1` })
      .where(and(eq(posts.id, row.id), eq(posts.site_id, row.site_id), eq(posts.revision, row.revision))),
  );
}

/**
 * Columns a single-statement edit writes: none of them changes whether or where the post is public. Who
 * made the edit (`updated_by_*`) is written by every such edit; `review_requested` stays 0 on a post that
 * is not a draft (only drafts await review).
 */
export const PLAIN_FIELDS = [
  "title",
  "summary",
  "blocks_json",
  "author_slug",
  "author_name",
  "featured_image_id",
  "review_requested",
  "updated_by_kind",
  "updated_by_id",
  "updated_by_name",
] as const;
export type PlainFields = Partial<Pick<PostRow, (typeof PLAIN_FIELDS)[number]>>;

/** The revision a reader sees (see posts/revision-tag.ts), in SQL. */
const EFFECTIVE_REVISION = `revision + (CASE WHEN status = 'scheduled' AND published_at <= ? THEN 1 ELSE 0 END)`;

/**
 * One atomic edit of the columns sent (and a JSON merge patch, RFC 7396, onto `seo_json`: a key set to
 * null is removed, arrays replace): no read-modify-write, so concurrent edits never conflict, and of two
 * edits of one column the later statement wins. `revisions`, when given, is the If-Match precondition on
 * the revision the client read. Returns the row as written, or null when no row matched.
 */
export function editPostFieldsStatement(
  db: D1Database,
  target: { siteId: string; id: string },
  fields: PlainFields,
  seoPatch: Record<string, unknown> | null,
  stamp: string,
  revisions: number[] | null,
): Query<PostRow> {
  const names = PLAIN_FIELDS.filter((f) => fields[f] !== undefined);
  const sets = names.map((f) =>
    f === "review_requested"
      ? "review_requested = (CASE WHEN status = 'draft' THEN ? ELSE 0 END)"
      : `${f} = ?`,
  );
  const params: unknown[] = names.map((f) => fields[f]);
  if (seoPatch) {
    sets.push(
      `seo_json = json_patch(CASE WHEN json_valid(seo_json) AND json_type(seo_json) = 'object' THEN seo_json ELSE '{}' END, ?)`,
    );
    params.push(JSON.stringify(seoPatch));
  }
  let where = "id = ? AND site_id = ? AND status != 'deleted'";
  params.push(stamp, target.id, target.siteId);
  if (revisions) {
    where += ` AND ${EFFECTIVE_REVISION} IN (${revisions.map(() => "?").join(", ") || "NULL"})`;
    params.push(stamp, ...revisions);
  }
  return query<PostRow>(
    db,
    `UPDATE posts SET ${[...sets, "updated_at = MAX(updated_at, ?)", "revision = revision + 1"].join(", ")}
       WHERE ${where} RETURNING ${COLUMNS}`,
    ...params,
  );
}

/**
 * The `post.updated` outbox row of a single-statement edit (`editPostFieldsStatement`): place it directly
 * after that UPDATE in the same batch. It is written only when the UPDATE changed the row (`changes()`)
 * and the post, as the UPDATE left it, is stored published and public; its payload (the flat event of
 * webhooks/events.ts `postEvent`, url as core/effects/outbound.ts `postUrl`) is read from that row, so a
 * concurrent edit between a read and this batch can neither lose nor misdate the event.
 */
export function postUpdatedEffectStatement(
  db: D1Database,
  eventId: string,
  target: { siteId: string; id: string },
  root: { origin: string; defaultLanguage: string },
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO post_effects (id, site_id, post_id, kind, payload_json, created_at)
       SELECT ?, p.site_id, p.id, 'event', json_object(
         'id', ?, 'type', 'post.updated', 'site_id', p.site_id, 'post_id', p.id, 'slug', p.slug,
         'language', p.language,
         'url', ? || (CASE WHEN p.language = ? THEN '' ELSE '/' || p.language END) || ${POST_PATH_SQL},
         'post_type', p.post_type, 'title', p.title, 'status', p.status, 'published_at', p.published_at,
         'updated_at', p.updated_at, 'occurred_at', ?), ?
       FROM posts p
       WHERE changes() = 1 AND p.id = ? AND p.site_id = ? AND p.status = 'published' AND p.access = 'public'
         AND p.published_at <= ?
         AND p.post_type IN (SELECT slug FROM post_types WHERE site_id = p.site_id AND is_public = 1)`,
    )
    .bind(eventId, eventId, root.origin, root.defaultLanguage, now, now, target.id, target.siteId, now);
}

/**
 * Unpublishes a post still published at `now` (archived): of two concurrent unpublishes exactly one
 * changes the row. Its outbox rows follow it in the same batch (`effectAfterUpdateStatement`).
 */
export function unpublishPostStatement(
  db: D1Database,
  siteId: string,
  id: string,
  now: string,
  by: ChangedBy,
) {
  return prepared(
    db,
    drizzle(db)
      .update(posts)
      .set({
        status: "archived",
        updated_at: now,
        revision: sqlFragment`${posts.revision} + 1`,
        updated_by_kind: by.updated_by_kind,
        updated_by_id: by.updated_by_id,
        updated_by_name: by.updated_by_name,
      })
      .where(
        and(
          eq(posts.id, id),
          eq(posts.site_id, siteId),
          inArray(posts.status, ["published", "scheduled"]),
          lte(posts.published_at, now),
        ),
      ),
  );
}

/** Who made a change, as the row stores it (posts/roles.ts `updateStamp`). */
export type ChangedBy = Pick<PostRow, "updated_by_kind" | "updated_by_id" | "updated_by_name">;

/**
 * Soft-deletes a post (status `deleted`, slug `deletedSlug`): of two concurrent deletes exactly one
 * changes the row. Its outbox rows follow it in the same batch (`effectAfterUpdateStatement`).
 */
export function softDeletePostStatement(
  db: D1Database,
  siteId: string,
  id: string,
  slug: string,
  updatedAt: string,
  by: ChangedBy,
) {
  return prepared(
    db,
    drizzle(db)
      .update(posts)
      .set({
        status: "deleted",
        slug,
        updated_at: updatedAt,
        revision: sqlFragment`${posts.revision} + 1`,
        review_requested: 0,
        updated_by_kind: by.updated_by_kind,
        updated_by_id: by.updated_by_id,
        updated_by_name: by.updated_by_name,
      })
      .where(and(eq(posts.id, id), eq(posts.site_id, siteId), ne(posts.status, "deleted"))),
  );
}

/**
 * The path of post `p` below its language prefix, in SQL: `postPath` of core/effects/outbound.ts (a legal
 * page, `fields.secao` = `legal`, lives under /legal/; the legal index at /legal/ itself).
 */
const POST_PATH_SQL = `(CASE WHEN json_valid(p.fields) AND json_extract(p.fields, '$.secao') = 'legal'
  THEN '/legal/' || (CASE WHEN json_extract(p.fields, '$.documento_legal') = 'indice' THEN '' ELSE p.slug END)
  ELSE '/' || p.slug END)`;

/** Which of the candidate slugs are taken in (site, language). */
export async function takenSlugs(
  db: D1Database,
  siteId: string,
  language: string,
  candidates: string[],
): Promise<Set<string>> {
  const results = await drizzle(db)
    .select({ slug: posts.slug })
    .from(posts)
    .where(and(eq(posts.site_id, siteId), eq(posts.language, language), inJsonEach(posts.slug, candidates)))
    .all();
  return new Set(results.map((r) => r.slug));
}

export async function getPost(db: D1Database, siteId: string, id: string): Promise<PostRow | null> {
  const row = await drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(and(eq(posts.id, id), eq(posts.site_id, siteId)))
    .get();
  return row ?? null;
}

/** Non-deleted posts of the site with this slug (one per language at most), optionally in one language. */
export async function postsBySlug(
  db: D1Database,
  siteId: string,
  slug: string,
  language: string | null,
): Promise<PostRow[]> {
  return drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(
      and(
        eq(posts.site_id, siteId),
        eq(posts.slug, slug),
        ne(posts.status, "deleted"),
        language ? eq(posts.language, language) : undefined,
      ),
    )
    .orderBy(asc(posts.language))
    .all();
}

export async function publicTypeSlugs(db: D1Database, siteId: string): Promise<Set<string>> {
  const results = await drizzle(db)
    .select({ slug: postTypes.slug })
    .from(postTypes)
    .where(and(eq(postTypes.site_id, siteId), eq(postTypes.is_public, 1)))
    .all();
  return new Set(results.map((r) => r.slug));
}

export interface ListFilters {
  categories: string[];
  tags: string[];
  /** FTS5 MATCH expression (already quoted). */
  match: string | null;
  since: string | null;
  language: string | null;
  postType: string | null;
  author: string | null;
  /** The dashboard list's `review_requested=true`: drafts their creator marked ready (absent: every post). */
  reviewRequested?: boolean;
}

function filterSql(filters: ListFilters, now: string): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filters.postType) {
    where.push("p.post_type = ?");
    params.push(filters.postType);
  }
  if (filters.language) {
    where.push("p.language = ?");
    params.push(filters.language);
  }
  if (filters.author) {
    where.push("p.author_slug = ?");
    params.push(filters.author);
  }
  if (filters.reviewRequested !== undefined) {
    where.push("p.review_requested = ?");
    params.push(filters.reviewRequested ? 1 : 0);
  }
  if (filters.since) {
    where.push(`${READ_UPDATED_AT} >= ?`);
    params.push(now, filters.since);
  }
  if (filters.categories.length > 0) {
    where.push(
      `EXISTS (SELECT 1 FROM json_each(p.seo_json, '$.category_slugs') WHERE value IN (${filters.categories.map(() => "?").join(", ")}))`,
    );
    params.push(...filters.categories);
  }
  if (filters.tags.length > 0) {
    where.push(
      `EXISTS (SELECT 1 FROM json_each(p.seo_json, '$.tag_slugs') WHERE value IN (${filters.tags.map(() => "?").join(", ")}))`,
    );
    params.push(...filters.tags);
  }
  if (filters.match) {
    where.push("p.rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)");
    params.push(filters.match);
  }
  return { where, params };
}

/**
 * When the site's next scheduled post comes due (after `now`), or null: until then no public answer of
 * the site changes by the clock alone, so an edge-cached answer stays right at most until this moment.
 */
export function nextPublicationStatement(db: D1Database, siteId: string, now: string) {
  return query<Computed<{ at: string | null }>>(
    db,
    "SELECT MIN(published_at) AS at FROM posts WHERE site_id = ? AND status = 'scheduled' AND published_at > ?",
    siteId,
    now,
  );
}

/** A public read's rows and the site's next publication (`nextPublicationStatement`), read in one batch. */
export interface PublicRead<T> {
  rows: T;
  nextPublicationAt: string | null;
}

/** A listing's count of every post its filters match (`include=total`), read in the page's batch. */
type TotalQuery = Query<Computed<{ total: number }>>;

/** The total of a listing as its count statement read it (null when it was not asked for). */
function totalOf(outcome: { rows: Computed<{ total: number }>[] } | undefined): number | null {
  return outcome ? (outcome.rows[0]?.total ?? 0) : null;
}

/**
 * Public listing, newest first, keyset over (published_at, id); up to limit + 1 rows, and the site's next
 * publication in the same batch (one round trip); with `withTotal` also the count of every public post the
 * filters match (not the page), in that batch.
 */
export async function listPublicPosts(
  db: D1Database,
  siteId: string,
  now: string,
  filters: ListFilters,
  after: { publishedAt: string; id: string } | null,
  limit: number,
  /** False for a listing that is never cached (`since`): the site's next publication is not read. */
  withNextPublication = true,
  withTotal = false,
): Promise<PublicRead<PostRow[]> & { total: number | null }> {
  const { where, params } = filterSql(filters, now);
  const matching = `FROM posts p WHERE ${PUBLIC_WHERE}${where.map((w) => ` AND ${w}`).join("")}`;
  const total: TotalQuery | null = withTotal
    ? query<Computed<{ total: number }>>(db, `SELECT COUNT(*) AS total ${matching}`, siteId, now, ...params)
    : null;
  const keyset = after ? " AND (p.published_at, p.id) < (?, ?)" : "";
  const sql = `SELECT ${SUMMARY_COLUMNS} ${matching}${keyset} ORDER BY p.published_at DESC, p.id DESC LIMIT ?`;
  const page = query<PostRow>(
    db,
    sql,
    siteId,
    now,
    ...params,
    ...(after ? [after.publishedAt, after.id] : []),
    limit + 1,
  );
  // A listing nobody caches needs no bound on its freshness: the page alone (and its total when asked).
  if (!withNextPublication) {
    if (!total) return { rows: await all(page), nextPublicationAt: null, total: null };
    const [list, counted] = await batch(db, [page, total]);
    return { rows: list.rows, nextPublicationAt: null, total: totalOf(counted) };
  }
  const next = nextPublicationStatement(db, siteId, now);
  if (!total) {
    const [list, at] = await batch(db, [page, next]);
    return { rows: list.rows, nextPublicationAt: at.rows[0]?.at ?? null, total: null };
  }
  const [list, at, counted] = await batch(db, [page, next, total]);
  return { rows: list.rows, nextPublicationAt: at.rows[0]?.at ?? null, total: totalOf(counted) };
}

/** A public post's reference: an id, or a slug (in one language, or in every language). */
export type PublicReference = { id: string } | { slug: string; language: string | null };

/** The public posts a reference names (one at most by id), and the public URLs of their media. */
export interface PublicPosts {
  posts: PostRow[];
  /** Media id -> its row, for every live asset the posts reference (`post_media_refs`). */
  media: Map<string, MediaImageRow>;
}

/**
 * The public posts `reference` names, the R2 keys of the media they reference, and the site's next
 * publication: three statements in one batch, so a public detail read is one round trip.
 */
export async function readPublicPosts(
  db: D1Database,
  siteId: string,
  reference: PublicReference,
  now: string,
): Promise<PublicRead<PublicPosts>> {
  const [where, params] = publicPostMatch(siteId, reference, now);
  const [posts, media, next] = await batch(db, [
    query<PostRow>(
      db,
      `SELECT ${COLUMNS}, ${FEATURED_MEDIA_SQL} FROM posts p WHERE ${where} ORDER BY p.language`,
      ...params,
    ),
    query<MediaImageRow>(
      db,
      `SELECT ${MEDIA_IMAGE_COLUMNS} FROM media m WHERE m.site_id = ? AND m.status != 'deleted' AND m.id IN (
         SELECT r.media_id FROM post_media_refs r WHERE r.site_id = ? AND r.post_id IN (
           SELECT p.id FROM posts p WHERE ${where}))`,
      siteId,
      siteId,
      ...params,
    ),
    nextPublicationStatement(db, siteId, now),
  ]);
  const rows = media.rows.map((r) => [r.id, r] as const);
  return { rows: { posts: posts.rows, media: new Map(rows) }, nextPublicationAt: next.rows[0]?.at ?? null };
}

/** Every status but deleted: what listings, summaries and exports can show. */
export const LISTABLE_STATUSES = ["draft", "scheduled", "published", "archived"] as const;
export type ListableStatus = (typeof LISTABLE_STATUSES)[number];

/**
 * Authenticated status listing (deleted never), newest id first; up to limit + 1 rows, and with
 * `withTotal` the count of every post the statuses and filters match (not the page), in one batch.
 */
export async function listPostsByStatus(
  db: D1Database,
  siteId: string,
  now: string,
  statuses: ListableStatus[],
  filters: ListFilters,
  afterId: string | null,
  limit: number,
  withTotal = false,
): Promise<{ rows: PostRow[]; total: number | null }> {
  const { where, params } = filterSql(filters, now);
  const statusClauses: string[] = [];
  const statusParams: unknown[] = [];
  for (const s of statuses) {
    if (s === "draft" || s === "archived") {
      statusClauses.push("p.status = ?");
      statusParams.push(s);
    } else if (s === "published") {
      statusClauses.push("(p.status IN ('published', 'scheduled') AND p.published_at <= ?)");
      statusParams.push(now);
    } else {
      statusClauses.push("(p.status = 'scheduled' AND p.published_at > ?)");
      statusParams.push(now);
    }
  }
  const matching = `FROM posts p WHERE p.site_id = ? AND p.status != 'deleted'
    AND (${statusClauses.join(" OR ")})${where.map((w) => ` AND ${w}`).join("")}`;
  const keyset = afterId ? " AND p.id < ?" : "";
  const page = query<PostRow>(
    db,
    `SELECT ${SUMMARY_COLUMNS} ${matching}${keyset} ORDER BY p.id DESC LIMIT ?`,
    siteId,
    ...statusParams,
    ...params,
    ...(afterId ? [afterId] : []),
    limit + 1,
  );
  if (!withTotal) return { rows: await all(page), total: null };
  const total: TotalQuery = query<Computed<{ total: number }>>(
    db,
    `SELECT COUNT(*) AS total ${matching}`,
    siteId,
    ...statusParams,
    ...params,
  );
  const [list, counted] = await batch(db, [page, total]);
  return { rows: list.rows, total: totalOf(counted) };
}

/** The whole collection but deleted posts, in id order, a page after `afterId` (exclusive; "" for the first). */
export async function exportPostsPage(
  db: D1Database,
  siteId: string,
  afterId: string,
  limit: number,
): Promise<PostRow[]> {
  return drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(and(eq(posts.site_id, siteId), ne(posts.status, "deleted"), gt(posts.id, afterId)))
    .orderBy(asc(posts.id))
    .limit(limit)
    .all();
}

export async function mediaExists(db: D1Database, siteId: string, id: string): Promise<boolean> {
  const row = await drizzle(db)
    .select({ ok: sqlFragment<number>`1` })
    .from(media)
    .where(and(eq(media.id, id), eq(media.site_id, siteId), ne(media.status, "deleted")))
    .get();
  return row !== undefined;
}

/** The posts a set of path keys names (not deleted), for the analytics per post; one statement for any count. */
export async function postsBySlugAndLanguage(
  db: D1Database,
  siteId: string,
  keys: { slug: string; language: string }[],
): Promise<Pick<PostRow, "id" | "slug" | "title" | "language" | "post_type">[]> {
  if (keys.length === 0) return [];
  // The (slug, language) pairs bound as one JSON parameter (D1's 100-parameter limit), read by json_each.
  const pairs = JSON.stringify(keys.map((k) => [k.slug, k.language]));
  return drizzle(db)
    .select({
      id: posts.id,
      slug: posts.slug,
      title: posts.title,
      language: posts.language,
      post_type: posts.post_type,
    })
    .from(posts)
    .where(
      and(
        eq(posts.site_id, siteId),
        ne(posts.status, "deleted"),
        sqlFragment`(${posts.slug}, ${posts.language}) IN
          (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${pairs}))`,
      ),
    )
    .all();
}

/** Scheduled posts whose time has come (every site), oldest first: the cron publishes them. */
export async function dueScheduledPosts(db: D1Database, now: string, limit: number): Promise<PostRow[]> {
  return drizzle(db)
    .select(POST_SELECT)
    .from(posts)
    .where(and(eq(posts.status, "scheduled"), lte(posts.published_at, now), notFenced(posts.site_id)))
    .orderBy(asc(posts.published_at), asc(posts.id))
    .limit(limit)
    .all();
}

/**
 * Stores a due scheduled post as published, dated at its publication moment (`readUpdatedAt`), with the
 * revision bump readers already counted; changes nothing if it is no longer a due scheduled post.
 */
export function publishDueStatement(db: D1Database, post: Pick<PostRow, "id" | "site_id">, now: string) {
  return prepared(
    db,
    drizzle(db)
      .update(posts)
      .set({
        status: "published",
        updated_at: sqlFragment`MAX(${posts.updated_at}, ${posts.published_at})`,
        revision: sqlFragment`${posts.revision} + 1`,
      })
      .where(
        and(
          eq(posts.id, post.id),
          eq(posts.site_id, post.site_id),
          eq(posts.status, "scheduled"),
          lte(posts.published_at, now),
        ),
      ),
  );
}
