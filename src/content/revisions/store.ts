/** Post revisions (migration 0016): written by SQL triggers with every content change, read here. */
import { and, desc, eq, lt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { postRevisions } from "../../../schema/content";

export type RevisionRow = typeof postRevisions.$inferSelect;

/** How many revisions a post keeps (the trigger drops older ones; migration 0016). */
export const KEPT_REVISIONS = 50;

/** A post's revisions, newest first, below `before` (exclusive); up to limit + 1 rows. */
export async function listRevisions(
  db: D1Database,
  siteId: string,
  postId: string,
  before: number | null,
  limit: number,
): Promise<RevisionRow[]> {
  const where = [eq(postRevisions.site_id, siteId), eq(postRevisions.post_id, postId)];
  if (before !== null) where.push(lt(postRevisions.revision, before));
  return drizzle(db)
    .select()
    .from(postRevisions)
    .where(and(...where))
    .orderBy(desc(postRevisions.revision))
    .limit(limit + 1);
}

export async function getRevision(
  db: D1Database,
  siteId: string,
  postId: string,
  revision: number,
): Promise<RevisionRow | null> {
  const [row] = await drizzle(db)
    .select()
    .from(postRevisions)
    .where(
      and(
        eq(postRevisions.site_id, siteId),
        eq(postRevisions.post_id, postId),
        eq(postRevisions.revision, revision),
      ),
    )
    .limit(1);
  return row ?? null;
}
