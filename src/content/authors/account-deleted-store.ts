/** What an erased account's anonymization reads and writes (authors/account-deleted.ts builds the batch). */
import type { apiKeys, authorPersonas } from "../../../schema/content";
import type { Row } from "../../lib/rows";

/** The user's personas not yet renamed (their slug does not start with `renamedPrefix`), per site in order. */
export async function personasToRename(db: D1Database, userId: string, renamedPrefix: string) {
  const { results } = await db
    .prepare(
      `SELECT site_id, slug FROM author_personas WHERE user_id = ? AND slug NOT LIKE '${renamedPrefix}%'
       ORDER BY site_id, created_at, slug`,
    )
    .bind(userId)
    .all<Row<typeof authorPersonas, "site_id" | "slug">>();
  return results;
}

/** The sites where the user created keys. */
export async function keySitesOf(db: D1Database, userId: string) {
  const { results } = await db
    .prepare("SELECT DISTINCT site_id FROM api_keys WHERE created_by = ?")
    .bind(userId)
    .all<Row<typeof apiKeys, "site_id">>();
  return results;
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
    db
      // The byline it was made from (context_name) and the profile (bio, avatar) go too: both are the person's.
      .prepare(
        `UPDATE author_personas SET slug = ?1, display_name = ?2, context_name = ?2, bio = NULL, avatar_media_id = NULL
           WHERE site_id = ?3 AND slug = ?4`,
      )
      .bind(slug, name, persona.site_id, persona.slug),
  ];
}

/** The byline the user's keys sign new posts with. */
export function keysAuthorNameStatement(db: D1Database, userId: string, name: string): D1PreparedStatement {
  return db.prepare("UPDATE api_keys SET author_name = ? WHERE created_by = ?").bind(name, userId);
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
