import type { media } from "../../../schema/content";
import type { Row } from "../../lib/rows";

/** The media columns a public image view (media/image-view.ts) is built from; the public reads select exactly these. */
export type MediaImageRow = Row<
  typeof media,
  "id" | "site_id" | "r2_key" | "content_type" | "status" | "width" | "height" | "variants_json"
> &
  /** Issue 35: absent from a JSON copy built without them (treated as not given). */
  Partial<Row<typeof media, "alt" | "caption">>;

/** The columns to select for `MediaImageRow`, from table alias `m`. */
export const MEDIA_IMAGE_COLUMNS =
  "m.id, m.site_id, m.r2_key, m.content_type, m.status, m.width, m.height, m.variants_json, m.alt, m.caption";

/** `MediaImageRow` of table alias `m` as one JSON value (a subquery's column: a post's cover, an author's avatar). */
export const MEDIA_IMAGE_JSON = `json_object('id', m.id, 'site_id', m.site_id, 'r2_key', m.r2_key,
  'content_type', m.content_type, 'status', m.status, 'width', m.width, 'height', m.height,
  'variants_json', m.variants_json, 'alt', m.alt, 'caption', m.caption)`;
