/** SQL of the hourly health sweep: visible sites in keyset pages. */
import type { SiteRow } from "../site/store";

/** Visible sites with an id after `afterId`, in id order, at most `limit`. */
export async function visibleSitesPage(db: D1Database, afterId: string, limit: number): Promise<SiteRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM sites WHERE id > ? AND status NOT IN ('deleted', 'archived') ORDER BY id LIMIT ?")
    .bind(afterId, limit)
    .all<SiteRow>();
  return results;
}
