/** `GET /v1/media`: the query rules and the listing (newest first, no cursor). */
import { parseId } from "../../lib/ids";
import { optionalId } from "../core/id-param";
import { includesTotal } from "../core/list-include";
import { fail, problem } from "../errors";
import type { KeyContext } from "../keys/key-context";
import {
  editMediaText,
  getMedia,
  listMedia,
  type MediaRow,
  type MediaTextEdit,
  type MediaVisibility,
} from "./store";

export const LIST_DEFAULT = 50;
export const LIST_MAX = 500;

/** The query of `GET /v1/media` as its schema parses it. */
export interface MediaListQuery {
  limit?: string;
  folder_id?: string;
  tag_id?: string;
  include?: string;
}

/** `limit`: 1..500, default 50; outside the range is 400, never clamped. */
export function parseMediaLimit(value: string | undefined): number {
  if (value === undefined) return LIST_DEFAULT;
  const limit = /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (limit < 1 || limit > LIST_MAX) fail("INVALID_LIMIT", `limit must be an integer from 1 to ${LIST_MAX}.`);
  return limit;
}

/**
 * A public key lives in browsers and reads what the public site shows: only assets a public post uses (a
 * draft's or an embargoed post's cover must not leak before the post does). Secret keys see every asset.
 */
export function mediaVisibility(key: KeyContext): MediaVisibility {
  return key.kind === "public" ? { kind: "public", now: new Date().toISOString() } : { kind: "all" };
}

/** One asset the key may read; another site's, a deleted one, or one hidden from this key are the same 404. */
export async function readMediaAsset(db: D1Database, key: KeyContext, rawId: string): Promise<MediaRow> {
  const id = parseId(rawId);
  const row = id ? await getMedia(db, key.siteId, id, mediaVisibility(key)) : null;
  if (!row) throw problem("NOT_FOUND", "No such media asset.");
  return row;
}

/** The list (newest first) and, with include=total, how many assets the filters match in all. */
export async function listMediaAssets(
  db: D1Database,
  key: KeyContext,
  query: MediaListQuery,
): Promise<{ rows: MediaRow[]; total: number | null }> {
  const limit = parseMediaLimit(query.limit);
  const filters = {
    folderId: optionalId("folder_id", query.folder_id),
    tagId: optionalId("tag_id", query.tag_id),
  };
  const total = includesTotal(query.include);
  return listMedia(db, key.siteId, filters, limit, mediaVisibility(key), total);
}

/**
 * `PATCH /v1/media/{id}`: the asset's alt text and caption (only those sent; null or "" clears one), then
 * the asset as stored. Nothing editable is 400; another site's, a deleted or an unknown id 404.
 */
export async function editMediaAsset(
  db: D1Database,
  siteId: string,
  rawId: string,
  body: MediaTextEdit,
): Promise<MediaRow> {
  if (body.alt === undefined && body.caption === undefined) {
    fail("NOTHING_EDITABLE", "The body contains no editable field (alt, caption).");
  }
  const cleared = (v: string | null | undefined) => (v === "" ? null : v);
  const edit = { alt: cleared(body.alt), caption: cleared(body.caption) };
  const id = parseId(rawId);
  if (!id || !(await editMediaText(db, siteId, id, edit))) throw problem("NOT_FOUND", "No such media asset.");
  const row = await getMedia(db, siteId, id);
  if (!row) throw problem("NOT_FOUND", "No such media asset.");
  return row;
}
