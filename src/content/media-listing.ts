/** `GET /v1/media`: the query rules and the listing (newest first, no cursor). */
import { fail } from "./errors";
import { optionalId } from "./rules/id-param";
import { listMedia, type MediaRow } from "./store/media";

export const LIST_DEFAULT = 50;
export const LIST_MAX = 500;

/** The query of `GET /v1/media` as its schema parses it. */
export interface MediaListQuery {
  limit?: string;
  folder_id?: string;
  tag_id?: string;
}

/** `limit`: 1..500, default 50; outside the range is 400, never clamped. */
export function parseMediaLimit(value: string | undefined): number {
  if (value === undefined) return LIST_DEFAULT;
  const limit = /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (limit < 1 || limit > LIST_MAX) fail("INVALID_LIMIT", `limit must be an integer from 1 to ${LIST_MAX}.`);
  return limit;
}

export async function listMediaAssets(
  db: D1Database,
  siteId: string,
  query: MediaListQuery,
): Promise<MediaRow[]> {
  const limit = parseMediaLimit(query.limit);
  const filters = {
    folderId: optionalId("folder_id", query.folder_id),
    tagId: optionalId("tag_id", query.tag_id),
  };
  return listMedia(db, siteId, filters, limit);
}
