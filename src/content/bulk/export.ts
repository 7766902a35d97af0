/**
 * `GET /v1/export`: which resource may be exported, and the posts export, streamed page by page as
 * NDJSON lines that can be fed back to the import.
 */

import { fail } from "../errors";
import type { KeyContext } from "../keys/key-context";
import { taxonomy } from "../posts/shapes";
import { effectiveStatus, exportPostsPage, type PostRow } from "../posts/store";

const EXPORT_PAGE = 200;

/**
 * The exportable resource of a request (its scopes are checked by the route's key requirement): posts
 * (here), analytics (`analytics/export.ts`) and leads (`leads/export.ts`).
 */
export function exportResource(
  _key: KeyContext,
  resource: string | undefined,
  format: string | undefined,
): "posts" | "analytics" | "leads" {
  if (resource !== "posts" && resource !== "leads" && resource !== "analytics") {
    fail("BAD_REQUEST", "resource must be posts, leads or analytics.");
  }
  if (format !== undefined && format !== "ndjson" && format !== "csv") {
    fail("BAD_REQUEST", "format must be ndjson or csv.");
  }
  if (resource === "posts" && format === "csv") fail("BAD_REQUEST", "Posts export as NDJSON only.");
  return resource;
}

/** One export line: the CreatePost shape, so it can be fed back to the import. */
export function exportLine(row: PostRow, now: string) {
  let blocks: unknown = null;
  if (row.blocks_json !== null) {
    try {
      blocks = JSON.parse(row.blocks_json);
    } catch {
      blocks = row.blocks_json;
    }
  }
  return {
    title: row.title,
    slug: row.slug,
    summary: row.summary,
    blocks_json: blocks,
    status: effectiveStatus(row, now),
    published_at: row.published_at,
    language: row.language,
    post_type: row.post_type,
    author_slug: row.author_slug,
    featured_image_id: row.featured_image_id,
    ...taxonomy(row),
    access: row.access,
  };
}

/**
 * Every post of the site (deleted never) as NDJSON, read one page per pull so a large site is never
 * held in memory; `filename` names the download.
 */
export function exportPosts(
  db: D1Database,
  siteId: string,
  now: string,
): { body: ReadableStream<Uint8Array>; filename: string } {
  const encoder = new TextEncoder();
  let after = "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const results = await exportPostsPage(db, siteId, after, EXPORT_PAGE);
      if (results.length > 0) {
        after = results[results.length - 1]!.id;
        controller.enqueue(
          encoder.encode(results.map((r) => `${JSON.stringify(exportLine(r, now))}\n`).join("")),
        );
      }
      if (results.length < EXPORT_PAGE) controller.close();
    },
  });
  return { body, filename: `posts-${siteId}-${now.slice(0, 10)}.ndjson` };
}
