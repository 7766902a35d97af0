/**
 * The sites service's error catalogue: every problem+json answer of this service is made from one of
 * these entries. `specified` mirrors the spec's Errors table and the codes its PATCH rules name (the
 * table's `SETTINGS_*`, `CUSTOMIZATION_*`, `ADS_UNIT_*`, `LOGO_*`, `MODALS_*` families are spelled out in
 * `settingsCodes`); `beyondSpec` holds what the spec leaves unnamed, each with why.
 * test/sites/error-catalogue.unit.test.ts diffs this file against the spec.
 */
import { CommonErrors, defineErrors, errorsOf, type Fail } from "../lib/problem";

/** The settings validator's codes (all 400): what `refuse` in src/sites/settings may stop with. */
export const settingsCodes = defineErrors({
  BAD_REQUEST: 400,
  SETTINGS_INVALID_SVG: 400,
  SETTINGS_INVALID_ASSET_URL: 400,
  SETTINGS_INVALID_APPLETS: 400,
  CUSTOMIZATION_INVALID_SHAPE: 400,
  CUSTOMIZATION_TYPOGRAPHY_INVALID: 400,
  CUSTOMIZATION_LAYOUT_OUT_OF_RANGE: 400,
  CUSTOMIZATION_INVALID_HEADER_MODEL: 400,
  CUSTOMIZATION_INVALID_FOOTER_MODEL: 400,
  /** Ours, in the spec's `CUSTOMIZATION_*` family: `theme_base` outside light, auto, dark, sepia, high_contrast. */
  CUSTOMIZATION_INVALID_THEME_BASE: 400,
  ADS_UNIT_CREATIVE_INVALID: 400,
  ADS_UNIT_CREATIVE_URL_INVALID: 400,
  ADS_UNIT_UNKNOWN_KIND: 400,
  ADS_UNIT_MARKUP_FORBIDDEN: 400,
  ADS_UNIT_HTML_RETIRED: 400,
  /** Ours, in the spec's `ADS_UNIT_*` family: `settings.ads.units` or a unit is not of the right shape. */
  ADS_UNIT_INVALID_SHAPE: 400,
  LOGO_INVALID_SHAPE: 400,
  LOGO_INVALID_VERSION: 400,
  LOGO_INVALID_ALT: 400,
  LOGO_INVALID_SIZE: 400,
  LOGO_INVALID_VARIANT: 400,
  LOGO_INVALID_SOURCE: 400,
  LOGO_UNSUPPORTED_TYPE: 400,
  LOGO_DUPLICATE_TYPE: 400,
  LOGO_TOO_MANY_SOURCES: 400,
  LOGO_MIXED_FORM: 400,
  LOGO_EMPTY_LIGHT: 400,
  MODALS_INVALID_SHAPE: 400,
  MODALS_TOO_MANY: 400,
  MODALS_INVALID: 400,
  MODALS_UNKNOWN_FIELD: 400,
  MODALS_MARKUP_FORBIDDEN: 400,
  MODALS_CONTENT_UNKNOWN_KIND: 400,
  MODALS_CONTENT_REF_UNKNOWN: 400,
  MODALS_CONTENT_INVALID_ULID: 400,
  MODALS_TRIGGER_UNKNOWN_KIND: 400,
  MODALS_TRIGGER_INVALID: 400,
  MODALS_PAGES_INVALID: 400,
  MODALS_FREQUENCY_INVALID: 400,
  MODALS_AUDIENCE_INVALID: 400,
});

export const specified = defineErrors({
  // 400
  THEME_INVALID_NAME: 400,
  THEME_INVALID_SLUG: 400,
  THEME_INVALID_VERSION: 400,
  THEME_INVALID_PREVIEW_URL: 400,
  THEME_EMPTY: 400,
  THEME_CONTRAST_INSUFFICIENT: 400,
  LEGAL_UNKNOWN_DOC: 400,
  LEGAL_INVALID_CASE: 400,
  // 403
  FORBIDDEN: 403,
  PLATFORM_FORBIDDEN: 403,
  // 404
  NOT_FOUND: 404,
  SITE_NOT_FOUND: 404,
  THEME_NOT_FOUND: 404,
  APPLET_NOT_FOUND: 404,
  // 409
  DOMAIN_TAKEN: 409,
  SLUG_TAKEN: 409,
  SITE_LIMIT_REACHED: 409,
  SETTINGS_UNREADABLE: 409,
  THEME_SLUG_TAKEN: 409,
  THEME_NOTHING_TO_UNDO: 409,
  APPLET_DISABLED: 409,
  // 422
  IMAGEM_EXTERNA_INVALIDA: 422,
  // 503
  THEMES_UNAVAILABLE: 503,
});

export const beyondSpec = defineErrors({
  /** A request body above the 1 MiB the registry accepts. */
  PAYLOAD_TOO_LARGE: CommonErrors.PAYLOAD_TOO_LARGE.status,
  UNSUPPORTED_MEDIA_TYPE: CommonErrors.UNSUPPORTED_MEDIA_TYPE.status,
  /** The spec's 500 "internal failure with redacted detail" names no code. */
  INTERNAL_ERROR: CommonErrors.INTERNAL_ERROR.status,
});

export const SitesErrors = { ...settingsCodes, ...specified, ...beyondSpec };
export type SitesErrorName = keyof typeof SitesErrors;
export type SettingsErrorName = keyof typeof settingsCodes;

const errors = errorsOf(SitesErrors);

/** Throws the catalogue's error `name`; `options` is the wire `detail` or the full problem options. */
export const fail: Fail<SitesErrorName> = errors.fail;
/** The catalogue's error `name`, for code that hands the error on instead of throwing it here. */
export const problem = errors.problem;
