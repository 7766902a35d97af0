/**
 * The platform's own media URLs (issue 33): an Editor.js image's `file.url` that names an asset of the
 * post's site on `MEDIA_PUBLIC_BASE` renders like `data.media_id`. The URLs are the ones media answers
 * carry (src/content/media/store.ts `mediaKey`, `mediaVariantKey`; image-view.ts): the original
 * `{base}/sites/{site_id}/{media_id}.{ext}` and a variant `{base}/sites/{site_id}/{media_id}/{width}.{ext}`.
 * Anything else (another origin, another site's path, a query or fragment) is a foreign URL.
 */
import { parseId } from "../../../lib/ids";

const KEY_TAIL = /^([0-9A-Za-z-]{26,36})(?:\.[a-z0-9]{1,8}|\/[0-9]{1,5}\.[a-z0-9]{1,8})$/;

/** The media id `url` names on `base` (MEDIA_PUBLIC_BASE) for `siteId`, or null when it is not one. */
export function platformMediaId(base: string, siteId: string, url: string): string | null {
  if (base === "" || siteId === "") return null;
  const prefix = `${base.replace(/\/+$/, "")}/sites/${siteId}/`;
  if (!url.startsWith(prefix)) return null;
  const match = KEY_TAIL.exec(url.slice(prefix.length));
  return match ? parseId(match[1]!) : null;
}
