import type { media } from "../../../schema/content";
import type { Row } from "../../lib/rows";

/** The media columns a public image view (media/image-view.ts) is built from; the public reads select exactly these. */
export type MediaImageRow = Row<
  typeof media,
  "id" | "site_id" | "r2_key" | "content_type" | "status" | "width" | "height" | "variants_json"
>;

/** The columns to select for `MediaImageRow`, from table alias `m`. */
export const MEDIA_IMAGE_COLUMNS =
  "m.id, m.site_id, m.r2_key, m.content_type, m.status, m.width, m.height, m.variants_json";
