import { checkAds } from "./ads";
import { checkApplets } from "./applets";
import { checkAssets } from "./assets";
import { checkBuilder } from "./builder";
import { checkCustomization } from "./customization";
import { checkDeclared } from "./declared";
import { collectExternalImageUrls } from "./image-urls";
import { cloneJsonDocument, isPlainObject, type JsonObject } from "./json";
import { checkLegal } from "./legal";
import { checkLogo } from "./logo";
import { checkModals } from "./modals";
import { refuse, type SettingsValidation, SettingsViolationError } from "./violation";

export type { ExternalImageRef } from "./image-urls";
export { collectExternalImageUrls, replaceImageUrl } from "./image-urls";
export type { SettingsValidation, SettingsViolation } from "./violation";

/**
 * At most this many image locations holding an absolute http(s) URL per document. Each one is an
 * image-ingest call on PATCH (all in parallel, within one request) and an image-swap message when
 * ingest does not finish, so the count must be bounded; real settings hold a handful.
 */
export const MAX_IMAGE_URLS = 100;

/**
 * Validates and sanitizes a whole settings document (PATCH replaces it; theme apply and undo run
 * the merged result through here too). Returns the document to store (SVG fields replaced by the
 * clean markup, logo sources in canonical order) or the FIRST violation, in this fixed order:
 *   1. JSON object, JSON values only      BAD_REQUEST
 *   2. assets: logo_svg, favicon_svg, logo_url, favicon_png_url, favicon_ico_url,
 *      seo.default_og_image, favicon_kit  SETTINGS_INVALID_SVG, SETTINGS_INVALID_ASSET_URL
 *   3. customization, header, footer      CUSTOMIZATION_*
 *   3b. home page builder (home.blocks)   BUILDER_*
 *   4. ads                                ADS_UNIT_*
 *   5. logo                               LOGO_* (+ asset codes with the logo path)
 *   6. modals (needs the ad unit ids)     MODALS_*
 *   7. applets                            SETTINGS_INVALID_APPLETS
 *   7b. legal (perfil, setor, owner data) SETTINGS_INVALID_LEGAL
 *   7c. the declared schema (schema.ts): a key it does not declare  SETTINGS_UNKNOWN_KEY; a declared
 *       value not of its kind  BAD_REQUEST; both pass where `stored` holds the same value there
 *   8. at most MAX_IMAGE_URLS absolute image URLs   BAD_REQUEST
 * `stored` is the document the write replaces (`{}` for a new site or a theme package). The input is
 * never mutated: everything works on a copy.
 */
export function validateSettings(settings: unknown, stored: JsonObject = {}): SettingsValidation {
  try {
    if (!isPlainObject(settings)) {
      return {
        ok: false,
        violation: { code: "BAD_REQUEST", path: "settings", message: "settings: must be a JSON object" },
      };
    }
    const document = cloneJsonDocument(settings, "settings");
    if (!isPlainObject(document)) throw new Error("unreachable: a cloned object is an object");
    checkAssets(document);
    checkCustomization(document);
    checkBuilder(document);
    const adUnitIds = checkAds(document);
    checkLogo(document);
    checkModals(document, adUnitIds);
    checkApplets(document);
    checkLegal(document);
    checkDeclared(document, stored);
    const images = collectExternalImageUrls(document).length;
    if (images > MAX_IMAGE_URLS) {
      refuse("BAD_REQUEST", "settings", `at most ${MAX_IMAGE_URLS} image URLs (found ${images})`);
    }
    return { ok: true, settings: document };
  } catch (error) {
    if (error instanceof SettingsViolationError) return { ok: false, violation: error.violation };
    throw error;
  }
}
