/**
 * How a public answer shows a media asset: `featured_image` of every post answer and the `<img>`/`<picture>`
 * of `content_html`. URLs are built from the asset's R2 keys under `MEDIA_PUBLIC_BASE` (the public origin:
 * the CDN host in production, the gateway in development), never from the URLs stored with the variants,
 * so an answer is always on the origin configured now. A `ready` asset shows its variants; while it is
 * `processing` (or `failed`) only its original.
 */

import type { MediaImageRow } from "./media-image";
import { mediaVariantKey } from "./store";

/** One rendition on the wire: its pixel width (null when unknown), URL and MIME type. */
export interface ImageVariant {
  width: number | null;
  url: string;
  format: string;
}

/** `featured_image` (and what content_html's images are built from). */
export interface ImageView {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  /** The asset's alt text when it has one, else the caller's fallback (a post's title, an author's name). */
  alt: string;
  /** The asset's caption, null when it has none. */
  caption: string | null;
  /** The `srcset` of the fallback `<img>`: the original's format (WebP for GIF and WebP originals). */
  srcset: string;
  /** Every rendition, the original included, narrowest first. */
  variants: ImageVariant[];
}

/** A stored variant's name is `{width}w-{ext}` (variants.ts `renditionsOf`); anything else is not one. */
const VARIANT_NAME = /^([0-9]{1,5})w-([a-z0-9]{1,8})$/;

const EXT_TYPES: Record<string, string> = {
  webp: "image/webp",
  png: "image/png",
  jpg: "image/jpeg",
  avif: "image/avif",
};

function storedVariants(json: string): { width: number; ext: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const out: { width: number; ext: string }[] = [];
  for (const v of parsed) {
    const match = typeof v?.name === "string" ? VARIANT_NAME.exec(v.name) : null;
    if (match && EXT_TYPES[match[2]!]) out.push({ width: Number(match[1]), ext: match[2]! });
  }
  return out;
}

/**
 * The view of an asset under `base` (MEDIA_PUBLIC_BASE): its own alt text when it has one (issue 35), else
 * `fallbackAlt`, the caller's (a post's title, an author's name; "" for an image of a post's body).
 */
export function imageView(base: string, row: MediaImageRow, fallbackAlt: string): ImageView {
  const url = `${base}/${row.r2_key}`;
  const original: ImageVariant = { width: row.width, url, format: row.content_type };
  const renditions: ImageVariant[] =
    row.status === "ready"
      ? storedVariants(row.variants_json).map((v) => ({
          width: v.width,
          url: `${base}/${mediaVariantKey(row.site_id, row.id, v.width, v.ext)}`,
          format: EXT_TYPES[v.ext]!,
        }))
      : [];
  const variants = [...renditions, original].sort((a, b) => (a.width ?? Infinity) - (b.width ?? Infinity));
  return {
    id: row.id,
    url,
    width: row.width,
    height: row.height,
    alt: row.alt ? row.alt : fallbackAlt,
    caption: row.caption ? row.caption : null,
    srcset: srcsetOf([...renditions.filter((v) => v.format === fallbackFormat(row)), original]),
    variants,
  };
}

/** The format of the `<img>`'s own srcset: the original's, or WebP where the original's is not rendered. */
function fallbackFormat(row: Pick<MediaImageRow, "content_type">): string {
  return row.content_type === "image/gif" || row.content_type === "image/webp"
    ? "image/webp"
    : row.content_type;
}

/** `url {w}w, …`, narrowest first; a single rendition of unknown width is its bare URL. */
export function srcsetOf(variants: ImageVariant[]): string {
  const sized = variants.filter((v) => v.width !== null).sort((a, b) => a.width! - b.width!);
  if (sized.length === 0) return variants[0]?.url ?? "";
  return sized.map((v) => `${v.url} ${v.width}w`).join(", ");
}

/**
 * The WebP renditions' srcset, for a `<source type="image/webp">` ahead of the `<img>`: null when there
 * are none, or when the `<img>`'s own srcset is already WebP (GIF and WebP originals).
 */
export function webpSrcset(view: ImageView): string | null {
  const original = view.variants.find((v) => v.url === view.url);
  if (!original || fallbackFormat({ content_type: original.format }) === "image/webp") return null;
  const webp = view.variants.filter((v) => v.format === "image/webp");
  return webp.length > 0 ? srcsetOf(webp) : null;
}
