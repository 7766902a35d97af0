/** What the feeds read: the live site by slug or id, and its public posts (one batch with the next publication). */
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sites } from "../../../schema/content";
import { parseId } from "../../lib/ids";
import { batch, query } from "../../lib/sql";
import { nextPublicationStatement, type PostRow, PUBLIC_WHERE } from "../posts/store";

export interface FeedSite {
  id: string;
  slug: string;
  name: string;
  primary_domain: string | null;
  default_language: string;
  content_version: number;
}

/** The site `{site}` names (its id, else its slug), only while it is live (`active`); else null. */
export async function liveSite(db: D1Database, reference: string): Promise<FeedSite | null> {
  const id = parseId(reference);
  const row = await drizzle(db)
    .select({
      id: sites.id,
      slug: sites.slug,
      name: sites.name,
      primary_domain: sites.primary_domain,
      default_language: sites.default_language,
      content_version: sites.content_version,
    })
    .from(sites)
    .where(and(id ? eq(sites.id, id) : eq(sites.slug, reference), eq(sites.status, "active")))
    .limit(1)
    .get();
  return row ?? null;
}

export type FeedPost = Pick<
  PostRow,
  "id" | "slug" | "language" | "fields" | "title" | "summary" | "published_at" | "updated_at" | "author_name"
>;

/** Public posts of the site, newest first (in one language when given), and the next scheduled publication. */
export async function publicFeedPosts(
  db: D1Database,
  siteId: string,
  language: string | null,
  limit: number,
  now: string,
): Promise<{ posts: FeedPost[]; nextPublicationAt: string | null }> {
  const [posts, next] = await batch(db, [
    query<FeedPost>(
      db,
      `SELECT p.id, p.slug, p.language, p.fields, p.title, p.summary, p.published_at,
           (CASE WHEN p.status = 'scheduled' THEN MAX(p.updated_at, p.published_at) ELSE p.updated_at END) AS updated_at,
           p.author_name
         FROM posts p WHERE ${PUBLIC_WHERE}${language ? " AND p.language = ?" : ""}
         ORDER BY p.published_at DESC, p.id DESC LIMIT ?`,
      siteId,
      now,
      ...(language ? [language] : []),
      limit,
    ),
    nextPublicationStatement(db, siteId, now),
  ]);
  return { posts: posts.rows, nextPublicationAt: next.rows[0]?.at ?? null };
}
