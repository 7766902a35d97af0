/** What an erased account's anonymization reads and writes (authors/account-deleted.ts builds the batch). */
import { and, asc, eq, notLike } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { apiKeys, authorPersonas } from "../../../schema/content";
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
    db
      .prepare("UPDATE posts SET author_slug = ?1, author_name = ?2 WHERE site_id = ?3 AND author_slug = ?4")
      .bind(slug, name, persona.site_id, persona.slug),
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
  return [
    db
      .prepare(
        "UPDATE posts SET created_by_name = ?1 WHERE created_by_kind = 'person' AND created_by_id = ?2 AND created_by_name IS NOT ?1",
      )
      .bind(name, userId),
    db
      .prepare(
        "UPDATE posts SET updated_by_name = ?1 WHERE updated_by_kind = 'person' AND updated_by_id = ?2 AND updated_by_name IS NOT ?1",
      )
      .bind(name, userId),
    db
      .prepare(
        "UPDATE post_revisions SET made_by_name = ?1 WHERE made_by_kind = 'person' AND made_by_id = ?2 AND made_by_name IS NOT ?1",
      )
      .bind(name, userId),
  ];
}
