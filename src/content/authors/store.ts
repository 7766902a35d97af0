/** Author personas of a site: one per (site, user, context name); the slug is unique per site. */
import { and, asc, eq, ne, or, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { authorPersonas, posts } from "../../../schema/content";
import type { Computed, Row } from "../../lib/rows";
import { batch, fragment, inJsonEach, numbered, prepared } from "../../lib/sql";
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

/** The persona table as alias `a`, which the SQL below names. */
const a = alias(authorPersonas, "a");

/** An author as the author routes show it: the persona and its avatar's media row (JSON). */
const AUTHOR_SELECT = {
  slug: a.slug,
  display_name: a.display_name,
  bio: a.bio,
  avatar_media_id: a.avatar_media_id,
  created_at: a.created_at,
  updated_at: a.updated_at,
  /**
   * `MediaImageRow` as JSON (media/media-image.ts), null without a live avatar. SQL text over the alias:
   * drizzle writes a single-table select's columns unqualified, so a subquery's columns would be ambiguous.
   */
  avatar_media: sql<string | null>`(${sql.raw(`SELECT ${MEDIA_IMAGE_JSON}
    FROM media m WHERE m.id = a.avatar_media_id AND m.site_id = a.site_id AND m.status != 'deleted'`)})`,
};

export type AuthorRow = Row<
  typeof authorPersonas,
  "slug" | "display_name" | "bio" | "avatar_media_id" | "created_at" | "updated_at"
> &
  /** `MediaImageRow` as JSON (media/media-image.ts), null without a live avatar. */
  Computed<{ avatar_media: string | null }>;

/**
 * Author `a` is named by a public post at `now`: PUBLIC_WHERE (posts/store.ts) with its parameters numbered
 * for `fragment` (?1 the site id, ?2 `now`).
 */
const NAMED_BY_PUBLIC_POST = `EXISTS (SELECT 1 FROM posts p WHERE ${numbered(PUBLIC_WHERE)} AND p.author_slug = a.slug)`;

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
  const d = drizzle(db);
  const where: SQL | undefined = and(
    eq(a.site_id, siteId),
    publicOnly ? fragment(NAMED_BY_PUBLIC_POST, siteId, publicOnly.now) : undefined,
  );
  const page = d.select(AUTHOR_SELECT).from(a).where(where).orderBy(asc(a.slug)).limit(1000);
  if (!withTotal) return { rows: await page.all(), total: null };
  const count = d.select({ total: sql<number>`COUNT(*)` }).from(a).where(where);
  const [rows, counted] = await d.batch([page, count]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function authorBySlug(db: D1Database, siteId: string, slug: string): Promise<AuthorRow | null> {
  const row = await drizzle(db)
    .select(AUTHOR_SELECT)
    .from(a)
    .where(and(eq(a.site_id, siteId), eq(a.slug, slug)))
    .get();
  return row ?? null;
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
    drizzle(db)
      .update(posts)
      .set({ author_slug: next.slug, author_name: next.name, revision: sql`${posts.revision} + 1` })
      .where(
        and(
          eq(posts.site_id, siteId),
          eq(posts.author_slug, slug),
          or(ne(posts.author_slug, next.slug), sql`${posts.author_name} IS NOT ${next.name}`),
        ),
      ),
  ]);
  return updated.changes > 0;
}
