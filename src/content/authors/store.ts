/** Author personas of a site: one per (site, user, display name); the slug is unique per site. */
import type { authorPersonas } from "../../../schema/content";
import type { Row } from "../../lib/rows";

export type PersonaRow = typeof authorPersonas.$inferSelect;

export interface Persona {
  slug: string;
  display_name: string;
}

export async function personaBySlug(db: D1Database, siteId: string, slug: string): Promise<Persona | null> {
  return db
    .prepare("SELECT slug, display_name FROM author_personas WHERE site_id = ? AND slug = ?")
    .bind(siteId, slug)
    .first<Persona>();
}

export async function personaByContext(
  db: D1Database,
  siteId: string,
  userId: string,
  displayName: string,
): Promise<Persona | null> {
  return db
    .prepare(
      "SELECT slug, display_name FROM author_personas WHERE site_id = ? AND user_id = ? AND display_name = ?",
    )
    .bind(siteId, userId, displayName)
    .first<Persona>();
}

/**
 * Inserts the first free of `candidates` for the context, unless the context already has a persona (a
 * concurrent first use): one statement, so the (site, slug) and (site, user, name) keys decide races.
 * Returns whether a row was written.
 */
export async function insertPersona(db: D1Database, row: PersonaRow): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO author_personas (site_id, slug, display_name, user_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    )
    .bind(row.site_id, row.slug, row.display_name, row.user_id, row.created_at)
    .run();
  return result.meta.changes > 0;
}

/** Which of the candidate slugs the site's personas already use. */
export async function takenPersonaSlugs(
  db: D1Database,
  siteId: string,
  candidates: string[],
): Promise<Set<string>> {
  const { results } = await db
    .prepare(
      `SELECT slug FROM author_personas WHERE site_id = ? AND slug IN (${candidates.map(() => "?").join(", ")})`,
    )
    .bind(siteId, ...candidates)
    .all<Row<typeof authorPersonas, "slug">>();
  return new Set(results.map((r) => r.slug));
}
