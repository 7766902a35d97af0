/** The media columns a public image view (media/image-view.ts) is built from; the public reads select exactly these. */
export interface MediaImageRow {
  id: string;
  site_id: string;
  r2_key: string;
  content_type: string;
  status: string;
  width: number | null;
  height: number | null;
  variants_json: string;
}

/** The columns to select for `MediaImageRow`, from table alias `m`. */
export const MEDIA_IMAGE_COLUMNS =
  "m.id, m.site_id, m.r2_key, m.content_type, m.status, m.width, m.height, m.variants_json";
