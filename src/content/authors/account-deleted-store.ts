/** What an erased account's anonymization reads and writes (authors/account-deleted.ts builds the batch). */
import { and, asc, eq, notLike, type SQLWrapper, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiKeys, authorPersonas, postRevisions, posts } from "../../../schema/content";
import type { Row } from "../../lib/rows";
import { prepared } from "../../lib/sql";

/** The user's personas not yet renamed (their slug does not start with `renamedPrefix`), per site in order. */
export async function personasToRename(db: D1Database, userId: string, renamedPrefix: string) {
  return drizzle(db)
    .select({ site_id: authorPersonas.site_id, slug: authorPersonas.slug })
    .from(authorPersonas)
    .where(and(eq(authorPersonas.user_id, userId), notLike(authorPersonas.slug, `${renamedPrefix}%`)))
    .orderBy(asc(authorPersonas.site_id), asc(authorPersonas.created_at), asc(authorPersonas.slug))
    .all();
}

/** The sites where the user created keys. */
export async function keySitesOf(db: D1Database, userId: string) {
  return drizzle(db)
    .selectDistinct({ site_id: apiKeys.site_id })
    .from(apiKeys)
    .where(eq(apiKeys.created_by, userId))
    .all();
}

/** A persona renamed to `slug` and `name`, with the posts it signs (slug and byline). */
export function renamePersonaStatements(
  db: D1Database,
  persona: Row<typeof authorPersonas, "site_id" | "slug">,
  slug: string,
  name: string,
): D1PreparedStatement[] {
  return [
    prepared(
      db,
      drizzle(db)
        .update(posts)
        .set({ author_slug: slug, author_name: name })
        .where(and(eq(posts.site_id, persona.site_id), eq(posts.author_slug, persona.slug))),
    ),
    // The byline it was made from (context_name) and the profile (bio, avatar) go too: both are the person's.
    prepared(
      db,
      drizzle(db)
        .update(authorPersonas)
        .set({ slug, display_name: name, context_name: name, bio: null, avatar_media_id: null })
        .where(and(eq(authorPersonas.site_id, persona.site_id), eq(authorPersonas.slug, persona.slug))),
    ),
  ];
}

/** The byline the user's keys sign new posts with. */
export function keysAuthorNameStatement(db: D1Database, userId: string, name: string): D1PreparedStatement {
  return prepared(
    db,
    drizzle(db).update(apiKeys).set({ author_name: name }).where(eq(apiKeys.created_by, userId)),
  );
}

/**
 * The user's name out of who-made-what (issue 34): posts they created or changed last, and revisions they
 * made, keep the user id and say `name` instead (the partial indexes of migration 0020 find the rows).
 */
export function actorNameStatements(db: D1Database, userId: string, name: string): D1PreparedStatement[] {
  const d = drizzle(db);
  // `'person'` stays a literal, as the partial indexes' condition is: a bound parameter would not match it.
  const byPerson = (kind: SQLWrapper, id: SQLWrapper, named: SQLWrapper) =>
    and(sql`${kind} = 'person'`, eq(id, userId), sql`${named} IS NOT ${name}`);
  return [
    prepared(
      db,
      d
        .update(posts)
        .set({ created_by_name: name })
        .where(byPerson(posts.created_by_kind, posts.created_by_id, posts.created_by_name)),
    ),
    prepared(
      db,
      d
        .update(posts)
        .set({ updated_by_name: name })
        .where(byPerson(posts.updated_by_kind, posts.updated_by_id, posts.updated_by_name)),
    ),
    prepared(
      db,
      d
        .update(postRevisions)
        .set({ made_by_name: name })
        .where(byPerson(postRevisions.made_by_kind, postRevisions.made_by_id, postRevisions.made_by_name)),
    ),
  ];
}
