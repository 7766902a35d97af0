import { ASSET_URL_RULE, isSiteAssetUrl, isStrictAssetUrl, STRICT_URL_RULE } from "./asset-urls";
import { fieldPath, isPlainObject, isPresent, type JsonObject } from "./json";
import { sanitizeSvgField } from "./svg";
import { refuse } from "./violation";

export const SVG_FIELDS = ["logo_svg", "favicon_svg"] as const;
export const SITE_ASSET_URL_FIELDS = ["logo_url", "favicon_png_url", "favicon_ico_url"] as const;

export const FAVICON_KIT_MAX_ENTRIES = 16;
/** Favicon kit entry names double as path segments (`settings.favicon_kit.apple-touch-icon`). */
export const FAVICON_KIT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function checkSiteAssetUrl(value: unknown, path: string): void {
  if (!isPresent(value)) return;
  if (!isSiteAssetUrl(value)) refuse("SETTINGS_INVALID_ASSET_URL", path, ASSET_URL_RULE);
}

/**
 * Assets family: SVG fields are sanitized in place (null clears them), asset URLs checked, then
 * the favicon kit (an object of entry name -> URL under the strict rule).
 */
export function checkAssets(settings: JsonObject): void {
  for (const key of SVG_FIELDS) {
    const value = settings[key];
    if (!isPresent(value)) continue;
    settings[key] = sanitizeSvgField(value, fieldPath("settings", key));
  }
  for (const key of SITE_ASSET_URL_FIELDS) checkSiteAssetUrl(settings[key], fieldPath("settings", key));

  const seo = settings.seo;
  if (isPresent(seo)) {
    if (!isPlainObject(seo)) refuse("BAD_REQUEST", "settings.seo", "must be an object");
    checkSiteAssetUrl(seo.default_og_image, "settings.seo.default_og_image");
  }

  const kit = settings.favicon_kit;
  if (!isPresent(kit)) return;
  if (!isPlainObject(kit)) {
    refuse("SETTINGS_INVALID_ASSET_URL", "settings.favicon_kit", "must be an object of name -> URL");
  }
  const entries = Object.entries(kit);
  if (entries.length > FAVICON_KIT_MAX_ENTRIES) {
    refuse(
      "SETTINGS_INVALID_ASSET_URL",
      "settings.favicon_kit",
      `at most ${FAVICON_KIT_MAX_ENTRIES} entries`,
    );
  }
  for (const [name, url] of entries) {
    const path = fieldPath("settings.favicon_kit", name);
    if (!FAVICON_KIT_NAME.test(name)) {
      refuse("SETTINGS_INVALID_ASSET_URL", path, "entry name must be 1..64 letters, digits, '_' or '-'");
    }
    if (!isStrictAssetUrl(url)) refuse("SETTINGS_INVALID_ASSET_URL", path, STRICT_URL_RULE);
  }
}
