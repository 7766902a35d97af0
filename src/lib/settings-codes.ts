/**
 * The codes a write of a site's settings document can end with, and their one status each. Sites owns
 * the document and its validator (src/sites/site/settings/); content's `PATCH /v1/site/settings` and
 * `PATCH /v1/site/seo` write through sites (`SitesRpc.mergeSiteSettings`) and answer with the same code
 * and status sites gave. Both catalogues (src/sites/errors.ts, src/content/errors.ts) are built from
 * these tables, so the two services cannot disagree on a code's status.
 */

/** The settings validator's codes (all 400): what `refuse` in src/sites/site/settings/ may stop with. */
export const SETTINGS_VALIDATOR_CODES = {
  BAD_REQUEST: 400,
  SETTINGS_INVALID_SVG: 400,
  SETTINGS_INVALID_ASSET_URL: 400,
  SETTINGS_INVALID_APPLETS: 400,
  /** Ours, in the spec's `SETTINGS_*` family: `settings.legal` (perfil, setor, owner data) malformed. */
  SETTINGS_INVALID_LEGAL: 400,
  /**
   * Ours, in the spec's `SETTINGS_*` family: a key the declared settings schema does not name
   * (src/sites/site/settings/schema.ts), with its JSON path in `details.path`; not refused under
   * `settings.ads` (open, as the spec says) or free-form values, nor when stored with the same value.
   */
  SETTINGS_UNKNOWN_KEY: 400,
  CUSTOMIZATION_INVALID_SHAPE: 400,
  CUSTOMIZATION_TYPOGRAPHY_INVALID: 400,
  CUSTOMIZATION_LAYOUT_OUT_OF_RANGE: 400,
  CUSTOMIZATION_INVALID_HEADER_MODEL: 400,
  CUSTOMIZATION_INVALID_FOOTER_MODEL: 400,
  /** Ours, in the spec's `CUSTOMIZATION_*` family: `theme_base` outside light, auto, dark, sepia, high_contrast. */
  CUSTOMIZATION_INVALID_THEME_BASE: 400,
  /** Ours, in the spec's `CUSTOMIZATION_*` family: a `customization.colors` value not a hex color. */
  CUSTOMIZATION_INVALID_COLOR: 400,
  /**
   * Ours, the spec's `BUILDER_*` family (its names are not shown): the home page builder,
   * `settings.home.blocks` (src/sites/site/settings/builder.ts).
   */
  BUILDER_INVALID_SHAPE: 400,
  BUILDER_TOO_MANY_BLOCKS: 400,
  BUILDER_UNKNOWN_BLOCK: 400,
  BUILDER_INVALID_BLOCK: 400,
  BUILDER_INVALID_SOURCE: 400,
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
} as const;

/**
 * Refusals of a settings write beyond the validator, as the sites PATCH gives them: the stored
 * document is not a JSON object (409), a new external image is refused for good by image ingest (422,
 * with `invalid_images`), and, for a merge only, a document that kept changing under it (409).
 */
export const SETTINGS_WRITE_REFUSALS = {
  SETTINGS_UNREADABLE: 409,
  IMAGEM_EXTERNA_INVALIDA: 422,
  /** Ours: a merge lost its compare-and-swap to concurrent writes on every attempt; retry. */
  EDIT_CONFLICT: 409,
} as const;

/**
 * Every code a refused settings write answers with: the above, a missing site (`NOT_FOUND`), and a
 * merged document above the PATCH's 1 MiB body cap (`PAYLOAD_TOO_LARGE`); both catalogues already hold
 * these two (the shared factory's errors).
 */
export const SETTINGS_WRITE_CODES = {
  ...SETTINGS_VALIDATOR_CODES,
  ...SETTINGS_WRITE_REFUSALS,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
} as const;

export type SettingsWriteCode = keyof typeof SETTINGS_WRITE_CODES;

export function isSettingsWriteCode(code: unknown): code is SettingsWriteCode {
  return typeof code === "string" && Object.hasOwn(SETTINGS_WRITE_CODES, code);
}
