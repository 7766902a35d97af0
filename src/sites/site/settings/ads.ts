import { isStrictAssetUrl, STRICT_URL_RULE } from "./asset-urls";
import {
  charLength,
  fieldPath,
  findKeyDeep,
  indexPath,
  isIntegerInRange,
  isOneOf,
  isPlainObject,
  isPresent,
  isRequiredText,
  type JsonObject,
} from "./json";
import { refuse } from "./violation";

export const ADS_MAX_UNITS = 100;
export const AD_UNIT_ID_MAX = 64;
export const AD_CREATIVE_SIZE_RANGE = [1, 4096] as const;
export const AD_IMAGE_ALT_MAX = 200;
export const AD_HEADLINE_MAX = 120;
export const AD_CREATIVE_KINDS = ["image", "text"] as const;

function requireText(creative: JsonObject, key: string, max: number, path: string): void {
  const value = creative[key];
  if (!isRequiredText(value, max)) {
    refuse("ADS_UNIT_CREATIVE_INVALID", fieldPath(path, key), `required text of 1..${max} characters`);
  }
}

function optionalText(creative: JsonObject, key: string, max: number, path: string): void {
  const value = creative[key];
  if (!isPresent(value)) return;
  if (typeof value !== "string" || charLength(value) > max) {
    refuse("ADS_UNIT_CREATIVE_INVALID", fieldPath(path, key), `must be text of at most ${max} characters`);
  }
}

/**
 * Internal creative. Order: creative object, `kind`, required fields (`target_url`, `width`,
 * `height`, then `image_url` + `image_alt` for images or `headline` for text), then URLs.
 */
function checkInternalCreative(unit: JsonObject, unitPath: string): void {
  const path = `${unitPath}.creative`;
  const creative = unit.creative;
  if (!isPlainObject(creative))
    refuse("ADS_UNIT_CREATIVE_INVALID", path, "an internal unit needs a creative object");
  const kind = creative.kind;
  if (!isOneOf(kind, AD_CREATIVE_KINDS)) {
    refuse("ADS_UNIT_UNKNOWN_KIND", `${path}.kind`, `must be one of ${AD_CREATIVE_KINDS.join(", ")}`);
  }
  if (typeof creative.target_url !== "string") {
    refuse("ADS_UNIT_CREATIVE_INVALID", `${path}.target_url`, "required");
  }
  for (const dimension of ["width", "height"] as const) {
    if (!isIntegerInRange(creative[dimension], ...AD_CREATIVE_SIZE_RANGE)) {
      refuse("ADS_UNIT_CREATIVE_INVALID", `${path}.${dimension}`, "required integer from 1 to 4096");
    }
  }
  if (kind === "image") {
    if (typeof creative.image_url !== "string")
      refuse("ADS_UNIT_CREATIVE_INVALID", `${path}.image_url`, "required");
    requireText(creative, "image_alt", AD_IMAGE_ALT_MAX, path);
    optionalText(creative, "headline", AD_HEADLINE_MAX, path);
  } else {
    requireText(creative, "headline", AD_HEADLINE_MAX, path);
    optionalText(creative, "image_alt", AD_IMAGE_ALT_MAX, path);
  }
  const imageUrl = creative.image_url;
  if (isPresent(imageUrl) && !isStrictAssetUrl(imageUrl)) {
    refuse("ADS_UNIT_CREATIVE_URL_INVALID", `${path}.image_url`, STRICT_URL_RULE);
  }
  if (!isStrictAssetUrl(creative.target_url)) {
    refuse("ADS_UNIT_CREATIVE_URL_INVALID", `${path}.target_url`, STRICT_URL_RULE);
  }
}

/**
 * Ads family. Unknown keys are tolerated (unlike modals) and units of other types pass through,
 * but markup never does: a unit of type `html` is retired and a key `html` anywhere under
 * `settings.ads` is refused (arbitrary markup belongs in `settings.code_injection`). Per unit, in
 * index order: object, `id`, type `html`, key `html`, internal creative. Returns the unit ids, for
 * the modals' `content.unit_id`.
 */
export function checkAds(settings: JsonObject): Set<string> {
  const ids = new Set<string>();
  const ads = settings.ads;
  if (!isPresent(ads)) return ids;
  if (!isPlainObject(ads)) refuse("ADS_UNIT_INVALID_SHAPE", "settings.ads", "must be an object");
  const units = ads.units;
  if (isPresent(units)) {
    if (!Array.isArray(units)) refuse("ADS_UNIT_INVALID_SHAPE", "settings.ads.units", "must be an array");
    if (units.length > ADS_MAX_UNITS) {
      refuse("ADS_UNIT_INVALID_SHAPE", "settings.ads.units", `at most ${ADS_MAX_UNITS} units`);
    }
    units.forEach((unit, i) => {
      const path = indexPath("settings.ads.units", i);
      if (!isPlainObject(unit)) refuse("ADS_UNIT_INVALID_SHAPE", path, "must be an object");
      if (isPresent(unit.id)) {
        if (typeof unit.id !== "string" || unit.id.length < 1 || charLength(unit.id) > AD_UNIT_ID_MAX) {
          refuse(
            "ADS_UNIT_INVALID_SHAPE",
            `${path}.id`,
            `must be a string of 1..${AD_UNIT_ID_MAX} characters`,
          );
        }
        if (ids.has(unit.id)) refuse("ADS_UNIT_INVALID_SHAPE", `${path}.id`, "duplicate unit id");
        ids.add(unit.id);
      }
      if (unit.type === "html") {
        refuse("ADS_UNIT_HTML_RETIRED", `${path}.type`, "unit type html was removed; migrate to internal");
      }
      const markup = findKeyDeep(unit, "html", path);
      if (markup) {
        refuse(
          "ADS_UNIT_MARKUP_FORBIDDEN",
          markup,
          "markup is not allowed in ad units; use settings.code_injection",
        );
      }
      if (unit.type === "internal") checkInternalCreative(unit, path);
    });
  }
  const { units: _units, ...rest } = ads;
  const markup = findKeyDeep(rest, "html", "settings.ads");
  if (markup)
    refuse(
      "ADS_UNIT_MARKUP_FORBIDDEN",
      markup,
      "markup is not allowed in settings.ads; use settings.code_injection",
    );
  return ids;
}
