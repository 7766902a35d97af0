/** How a converted body's images find the platform's own media. */
import { safeHttpUrl } from "../render/render-blocks";

/**
 * An `<img src>` resolver for the converter: absolute http(s) URLs stay; a platform media path
 * (`/media/{key}`, the gateway's route of `MEDIA_PUBLIC_BASE`) becomes `{mediaBase}/{key}`, the URL the
 * platform's own answers give the asset; anything else (other relative paths, data: URLs) is null.
 */
export function platformImageUrl(mediaBase: string): (src: string) => string | null {
  const base = mediaBase.replace(/\/+$/, "");
  return (src) => {
    const absolute = safeHttpUrl(src);
    if (absolute) return absolute;
    if (!/^\/media\/[^/\\\s]/.test(src)) return null;
    return safeHttpUrl(`${base}/${src.slice("/media/".length)}`);
  };
}
