/**
 * The sites service's error catalogue: every problem+json answer of this service is made from one of
 * these entries. `specified` mirrors the spec's Errors table and the codes its PATCH rules name (the
 * table's `SETTINGS_*`, `CUSTOMIZATION_*`, `ADS_UNIT_*`, `LOGO_*`, `MODALS_*` families are spelled out in
 * `settingsCodes`); `beyondSpec` holds what the spec leaves unnamed, each with why.
 * test/structure/error-catalogues.unit.test.ts diffs this file against the spec.
 */
import { CommonErrors, defineErrors, errorsOf, type Fail } from "../lib/problem";
import { SETTINGS_VALIDATOR_CODES, SETTINGS_WRITE_REFUSALS } from "../lib/settings-codes";

/** The settings validator's codes (all 400): what `refuse` in src/sites/site/settings/ may stop with. */
export const settingsCodes = defineErrors(SETTINGS_VALIDATOR_CODES);

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
  /**
   * A merge of settings (content's `PATCH /v1/site/settings` and `/v1/site/seo`, over RPC) that lost its
   * compare-and-swap to concurrent writes on every attempt; likewise an operator lifecycle transition or
   * purge whose site kept changing under it.
   */
  EDIT_CONFLICT: SETTINGS_WRITE_REFUSALS.EDIT_CONFLICT,
  /**
   * The spec's applets 502 ("failure materializing a content type on applet install", and its removal on
   * uninstall) names no code: content threw, timed out or refused the post type change; nothing stored.
   */
  APPLET_CONTENT_UNAVAILABLE: 502,
  /** The spec's 401 of legal page generation (no `X-User-Id`) names no code. */
  UNAUTHENTICATED: CommonErrors.UNAUTHENTICATED.status,
  TOKEN_EXPIRED: CommonErrors.TOKEN_EXPIRED.status,
  METHOD_NOT_ALLOWED: CommonErrors.METHOD_NOT_ALLOWED.status,
  /** The spec's 500 "internal failure with redacted detail" names no code. */
  INTERNAL_ERROR: CommonErrors.INTERNAL_ERROR.status,
  /** The spec's 503 "health cache not wired" names no code: `HEALTH_CACHE` KV binding absent. */
  HEALTH_UNAVAILABLE: 503,
  /** The spec's 500 "fleet address not configured" of check-dns names no code: PLATFORM_IPV4/IPV6 unset or invalid. */
  DNS_NOT_CONFIGURED: 500,
  /**
   * Operator group move (issue 38, beyond the spec): the site is already in that content group, or a move of
   * it is running.
   */
  SITE_MOVE_CONFLICT: 409,
});

export const SitesErrors = { ...settingsCodes, ...specified, ...beyondSpec };
export type SitesErrorName = keyof typeof SitesErrors;
export type SettingsErrorName = keyof typeof settingsCodes;

const errors = errorsOf(SitesErrors);

/** Throws the catalogue's error `name`; `options` is the wire `detail` or the full problem options. */
export const fail: Fail<SitesErrorName> = errors.fail;
/** The catalogue's error `name`, for code that hands the error on instead of throwing it here. */
export const problem = errors.problem;
