/** Author personas of a site: one per (site, user, context name); the slug is unique per site. */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { authorPersonas } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import { all, batch, inJsonEach, prepared, query } from "../../lib/sql";
import { MEDIA_IMAGE_JSON } from "../media/media-image";
import { PUBLIC_WHERE } from "../posts/store";

export type PersonaRow = typeof authorPersonas.$inferSelect;

export interface Persona {
  slug: string;
  display_name: string;
  /** Whose persona it is (a staff user, or `author:<id>` for authors made through the API), when read. */
  user_id?: string;
}

export async function personaBySlug(db: D1Database, siteId: string, slug: string): Promise<Persona | null> {
  const row = await drizzle(db)
    .select({
      slug: authorPersonas.slug,
      display_name: authorPersonas.display_name,
      user_id: authorPersonas.user_id,
    })
    .from(authorPersonas)
    .where(and(eq(authorPersonas.site_id, siteId), eq(authorPersonas.slug, slug)))
    .get();
  return row ?? null;
}

export async function personaByContext(
  db: D1Database,
  siteId: string,
  userId: string,
  displayName: string,
): Promise<Persona | null> {
  const row = await drizzle(db)
    .select({ slug: authorPersonas.slug, display_name: authorPersonas.display_name })
    .from(authorPersonas)
    .where(
      and(
        eq(authorPersonas.site_id, siteId),
        eq(authorPersonas.user_id, userId),
        eq(authorPersonas.context_name, displayName),
      ),
    )
    .get();
  return row ?? null;
}

/**
 * Inserts the first free of `candidates` for the context, unless the context already has a persona (a
 * concurrent first use): one statement, so the (site, slug) and (site, user, name) keys decide races.
 * Returns whether a row was written.
 */
export async function insertPersona(
  db: D1Database,
  row: Pick<PersonaRow, "site_id" | "slug" | "display_name" | "user_id" | "created_at">,
): Promise<boolean> {
  const result = await drizzle(db)
    .insert(authorPersonas)
    .values({
      site_id: row.site_id,
      slug: row.slug,
      display_name: row.display_name,
      user_id: row.user_id,
      created_at: row.created_at,
      context_name: row.display_name,
      updated_at: row.created_at,
    })
    .onConflictDoNothing()
    .run();
  return result.meta.changes > 0;
}

/** Which of the candidate slugs the site's personas already use. */
export async function takenPersonaSlugs(
  db: D1Database,
  siteId: string,
  candidates: string[],
): Promise<Set<string>> {
  const results = await drizzle(db)
    .select({ slug: authorPersonas.slug })
    .from(authorPersonas)
    .where(and(eq(authorPersonas.site_id, siteId), inJsonEach(authorPersonas.slug, candidates)))
    .all();
  return new Set(results.map((r) => r.slug));
}

/** An author as the author routes show it: the persona, its avatar's media row (JSON) and whether a public post names it. */
export type AuthorRow = Row<
  typeof authorPersonas,
  "slug" | "display_name" | "bio" | "avatar_media_id" | "created_at" | "updated_at"
> &
  /** `MediaImageRow` as JSON (media/media-image.ts), null without a live avatar. */
  Computed<{ avatar_media: string | null }>;

const AUTHOR_COLUMNS = `a.slug, a.display_name, a.bio, a.avatar_media_id, a.created_at, a.updated_at,
  (SELECT ${MEDIA_IMAGE_JSON}
   FROM media m WHERE m.id = a.avatar_media_id AND m.site_id = a.site_id AND m.status != 'deleted') AS avatar_media`;

/**
 * The site's authors by slug (at most 1,000): all of them, or (`publicOnly`, for pk_ keys) those a public
 * post names at `now`. Binds the site id (and the site id and `now` for the public filter).
 */
export async function listAuthors(
  db: D1Database,
  siteId: string,
  publicOnly: { now: string } | null,
  withTotal = false,
): Promise<{ rows: AuthorRow[]; total: number | null }> {
  const filter = publicOnly
    ? ` AND EXISTS (SELECT 1 FROM posts p WHERE ${PUBLIC_WHERE} AND p.author_slug = a.slug)`
    : "";
  const params = [siteId, ...(publicOnly ? [siteId, publicOnly.now] : [])];
  const page = query<AuthorRow>(
    db,
    `SELECT ${AUTHOR_COLUMNS} FROM author_personas a WHERE a.site_id = ?${filter} ORDER BY a.slug LIMIT 1000`,
    ...params,
  );
  if (!withTotal) return { rows: await all(page), total: null };
  const count = query<Computed<{ total: number }>>(
    db,
    `SELECT COUNT(*) AS total FROM author_personas a WHERE a.site_id = ?${filter}`,
    ...params,
  );
  const [list, counted] = await batch(db, [page, count]);
  return { rows: list.rows, total: counted.rows[0]?.total ?? 0 };
}

export async function authorBySlug(db: D1Database, siteId: string, slug: string): Promise<AuthorRow | null> {
  return db
    .prepare(`SELECT ${AUTHOR_COLUMNS} FROM author_personas a WHERE a.site_id = ? AND a.slug = ?`)
    .bind(siteId, slug)
    .first<AuthorRow>();
}

/** A new author made through the API (its own user id: no key's context names it). */
export function insertAuthorStatement(
  db: D1Database,
  siteId: string,
  author: { id: string; slug: string; name: string; bio: string | null; avatarMediaId: string | null },
  now: string,
): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db)
      .insert(authorPersonas)
      .values({
        site_id: siteId,
        slug: author.slug,
        display_name: author.name,
        user_id: `author:${author.id}`,
        created_at: now,
        bio: author.bio,
        avatar_media_id: author.avatarMediaId,
        context_name: author.name,
        updated_at: now,
      }),
  );
}

/**
 * An author's edit and, when its slug or name changes, its posts' byline (posts carry both): one batch,
 * so no post ever shows a slug its author no longer has. Returns whether the author existed.
 */
export async function updateAuthor(
  db: D1Database,
  siteId: string,
  slug: string,
  next: { slug: string; name: string; bio: string | null; avatarMediaId: string | null },
  now: string,
): Promise<boolean> {
  const [updated] = await batch(db, [
    drizzle(db)
      .update(authorPersonas)
      .set({
        slug: next.slug,
        display_name: next.name,
        bio: next.bio,
        avatar_media_id: next.avatarMediaId,
        updated_at: now,
      })
      .where(and(eq(authorPersonas.site_id, siteId), eq(authorPersonas.slug, slug))),
    db
      .prepare(
        `UPDATE posts SET author_slug = ?, author_name = ?, revision = revision + 1
         WHERE site_id = ? AND author_slug = ? AND (author_slug != ? OR author_name IS NOT ?)`,
      )
      .bind(next.slug, next.name, siteId, slug, next.slug, next.name),
  ]);
  return updated.changes > 0;
}
