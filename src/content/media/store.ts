/**
 * Media assets of a site: rows in D1, bytes in R2. The original under `sites/{site_id}/{media_id}.{ext}`,
 * each generated variant under `sites/{site_id}/{media_id}/{width}.{ext}`.
 */
import { and, desc, eq, ne, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { media, mediaTags } from "../../../schema/content";
import { fragment, numbered, prepared } from "../../lib/sql";
import { PUBLIC_WHERE } from "../posts/store";
import type { MediaImageRow } from "./media-image";

/** The media table as alias `m`, which the rule below (SQL) names. */
const m = alias(media, "m");

/**
 * Public reads (pk_ keys) see an asset only while a public post uses it: its featured image or an image
 * block's media_id (`post_media_refs`, kept by triggers on every post write). PUBLIC_WHERE's parameters
 * numbered for `fragment`: ?1 the site id, ?2 `now`.
 */
const USED_BY_PUBLIC_POST = `EXISTS (SELECT 1 FROM post_media_refs r JOIN posts p ON p.id = r.post_id
  WHERE r.site_id = m.site_id AND r.media_id = m.id AND ${numbered(PUBLIC_WHERE)})`;

/** What a read's visibility adds to its WHERE: nothing (ck_), or the public-use rule at `now` (pk_). */
function visibleWhere(siteId: string, visibility: MediaVisibility): SQL | undefined {
  return visibility.kind === "public" ? fragment(USED_BY_PUBLIC_POST, siteId, visibility.now) : undefined;
}

/** Which assets a read may see: all of the site's (ck_), or only those public content uses at `now` (pk_). */
export type MediaVisibility = { kind: "all" } | { kind: "public"; now: string };

/** The columns `SELECT` reads, plus `tag_ids`: the asset's media_tags rows joined by commas (or null). */
export type MediaRow = Pick<
  typeof media.$inferSelect,
  | "id"
  | "site_id"
  | "r2_key"
  | "content_type"
  | "size_bytes"
  | "status"
  | "folder_id"
  | "variants_json"
  | "created_at"
  | "width"
  | "height"
  | "failure_reason"
  | "alt"
  | "caption"
> & { tag_ids: string | null };

const SELECT = {
  id: m.id,
  site_id: m.site_id,
  r2_key: m.r2_key,
  content_type: m.content_type,
  size_bytes: m.size_bytes,
  status: m.status,
  folder_id: m.folder_id,
  variants_json: m.variants_json,
  created_at: m.created_at,
  width: m.width,
  height: m.height,
  failure_reason: m.failure_reason,
  alt: m.alt,
  caption: m.caption,
  // SQL text over the alias: drizzle writes a single-table select's columns unqualified, so a column of the
  // subquery would not say which table it is of.
  tag_ids: sql<
    string | null
  >`(${sql.raw("SELECT group_concat(t.tag_id, ',') FROM media_tags t WHERE t.media_id = m.id")})`,
};

export function mediaKey(siteId: string, id: string, ext: string): string {
  return `sites/${siteId}/${id}.${ext}`;
}

export function mediaVariantKey(siteId: string, id: string, width: number, ext: string): string {
  return `sites/${siteId}/${id}/${width}.${ext}`;
}

export function insertMediaStatements(
  db: D1Database,
  row: Omit<
    MediaRow,
    "tag_ids" | "variants_json" | "width" | "height" | "failure_reason" | "alt" | "caption"
  > &
    Partial<Pick<MediaRow, "alt" | "caption">>,
  tagIds: string[],
  source: { url: string | null; purpose: string | null },
): D1PreparedStatement[] {
  const d = drizzle(db);
  return [
    prepared(
      db,
      d.insert(media).values({
        id: row.id,
        site_id: row.site_id,
        r2_key: row.r2_key,
        content_type: row.content_type,
        size_bytes: row.size_bytes,
        status: row.status,
        source_url: source.url,
        purpose: source.purpose,
        folder_id: row.folder_id,
        created_at: row.created_at,
        alt: row.alt ?? null,
        caption: row.caption ?? null,
      }),
    ),
    ...tagIds.map((tag) => prepared(db, d.insert(mediaTags).values({ media_id: row.id, tag_id: tag }))),
  ];
}

/** A live (not deleted) asset of the site; another site's id answers null exactly like a missing one. */
export async function getMedia(
  db: D1Database,
  siteId: string,
  id: string,
  visibility: MediaVisibility = { kind: "all" },
): Promise<MediaRow | null> {
  const row = await drizzle(db)
    .select(SELECT)
    .from(m)
    .where(
      and(eq(m.id, id), eq(m.site_id, siteId), ne(m.status, "deleted"), visibleWhere(siteId, visibility)),
    )
    .get();
  return row ?? null;
}

/**
 * The site's live assets, newest first (at most `limit`), and with `withTotal` how many the filters match in
 * all: one batch.
 */
export async function listMedia(
  db: D1Database,
  siteId: string,
  filters: { folderId: string | null; tagId: string | null },
  limit: number,
  visibility: MediaVisibility = { kind: "all" },
  withTotal = false,
): Promise<{ rows: MediaRow[]; total: number | null }> {
  const d = drizzle(db);
  const where = and(
    eq(m.site_id, siteId),
    ne(m.status, "deleted"),
    visibleWhere(siteId, visibility),
    filters.folderId ? eq(m.folder_id, filters.folderId) : undefined,
    filters.tagId
      ? sql`EXISTS (SELECT 1 FROM ${mediaTags} WHERE ${mediaTags.media_id} = ${m.id} AND ${mediaTags.tag_id} = ${filters.tagId})`
      : undefined,
  );
  const page = d.select(SELECT).from(m).where(where).orderBy(desc(m.created_at), desc(m.id)).limit(limit);
  if (!withTotal) return { rows: await page.all(), total: null };
  const count = d.select({ total: sql<number>`COUNT(*)` }).from(m).where(where);
  const [rows, counted] = await d.batch([page, count]);
  return { rows, total: counted[0]?.total ?? 0 };
}

/** What an asset's text edit sets: only the fields sent (undefined: unchanged; null clears). */
export interface MediaTextEdit {
  alt?: string | null;
  caption?: string | null;
}

/** The edit of a live asset's alt text and caption; returns whether the asset was there to edit. */
export async function editMediaText(
  db: D1Database,
  siteId: string,
  id: string,
  edit: MediaTextEdit,
): Promise<boolean> {
  const outcome = await drizzle(db)
    .update(media)
    .set({
      ...(edit.alt !== undefined ? { alt: edit.alt } : {}),
      ...(edit.caption !== undefined ? { caption: edit.caption } : {}),
    })
    .where(and(eq(media.id, id), eq(media.site_id, siteId), ne(media.status, "deleted")))
    .run();
  return outcome.meta.changes > 0;
}

/**
 * The soft delete of a live asset of the site. Batch the purge of its URLs right after it
 * (`effectAfterUpdateStatement`), so the purge is recorded exactly when this changed the row.
 */
export function softDeleteMediaStatement(
  db: D1Database,
  siteId: string,
  id: string,
  now: string,
): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .update(media)
      .set({ status: "deleted", deleted_at: now })
      .where(and(eq(media.id, id), eq(media.site_id, siteId), ne(media.status, "deleted"))),
  );
}

/** The status of an asset by its site and id (any status), or null when there is no such row. */
export async function mediaStatus(db: D1Database, siteId: string, id: string): Promise<string | null> {
  const row = await drizzle(db)
    .select({ status: media.status })
    .from(media)
    .where(and(eq(media.id, id), eq(media.site_id, siteId)))
    .get();
  return row?.status ?? null;
}

/** What the variants consumer concluded: ready (with the variants) or failed (with the reason). */
export type VariantsResult =
  | { status: "ready"; width: number | null; height: number | null; variants: unknown[] }
  | { status: "failed"; width: number | null; height: number | null; reason: string };

/**
 * Records the variants consumer's result. Only a `processing` asset moves, so a redelivered message
 * never rewrites a finished asset and an asset deleted meanwhile stays deleted.
 */
export async function finishMediaVariants(
  db: D1Database,
  id: string,
  result: VariantsResult,
): Promise<boolean> {
  const outcome = await drizzle(db)
    .update(media)
    .set({
      status: result.status,
      width: result.width,
      height: result.height,
      variants_json: JSON.stringify(result.status === "ready" ? result.variants : []),
      failure_reason: result.status === "failed" ? result.reason : null,
    })
    .where(and(eq(media.id, id), eq(media.status, "processing")))
    .run();
  return outcome.meta.changes > 0;
}

/** A live asset's columns for its public view (media/image-view.ts), or null. */
export async function mediaImageRow(
  db: D1Database,
  siteId: string,
  id: string,
): Promise<MediaImageRow | null> {
  const row = await drizzle(db)
    .select({
      id: m.id,
      site_id: m.site_id,
      r2_key: m.r2_key,
      content_type: m.content_type,
      status: m.status,
      width: m.width,
      height: m.height,
      variants_json: m.variants_json,
      alt: m.alt,
      caption: m.caption,
    })
    .from(m)
    .where(and(eq(m.id, id), eq(m.site_id, siteId), ne(m.status, "deleted")))
    .get();
  return row ?? null;
}
