/** SQL of the hourly health sweep: visible sites in keyset pages. */
import { and, gt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sites } from "../../../schema/sites";
import { type SiteRow, visibleSite } from "../site/store";

/** Visible sites with an id after `afterId`, in id order, at most `limit`. */
export async function visibleSitesPage(db: D1Database, afterId: string, limit: number): Promise<SiteRow[]> {
  return drizzle(db)
    .select()
    .from(sites)
    .where(and(gt(sites.id, afterId), visibleSite()))
    .orderBy(sites.id)
    .limit(limit)
    .all();
}
