/**
 * The content service's error catalogue: every problem+json answer (and every failed import line)
 * carries one of these codes with its one status. The spec's Errors table gives statuses only ("error
 * code strings: not shown"), so the codes are ours; test/structure/error-catalogues.unit.test.ts checks
 * that every status is one the table lists (or the platform's redacted 500) and every listed status
 * has a code.
 */
import { CommonErrors, defineErrors, errorsOf, type Fail } from "../lib/problem";
import { SETTINGS_VALIDATOR_CODES, SETTINGS_WRITE_REFUSALS } from "../lib/settings-codes";

export const ContentErrors = defineErrors({
  // Site settings and SEO writes go through the sites service and answer with the code and status it
  // gave: its settings validator's codes (400), SETTINGS_UNREADABLE (409), IMAGEM_EXTERNA_INVALIDA (422,
  // with `invalid_images`) and EDIT_CONFLICT (409, below). Spread first: the entries below repeat
  // BAD_REQUEST and EDIT_CONFLICT with the same status.
  ...SETTINGS_VALIDATOR_CODES,
  ...SETTINGS_WRITE_REFUSALS,
  // 400: invalid parameter or body
  BAD_REQUEST: CommonErrors.BAD_REQUEST.status,
  INVALID_LIMIT: 400,
  INVALID_CURSOR: 400,
  INVALID_STATUS: 400,
  INVALID_POST_TYPE: 400,
  INVALID_SINCE: 400,
  INVALID_LANGUAGE: 400,
  INVALID_SLUG: 400,
  INVALID_TAXONOMY: 400,
  INVALID_AUTHOR: 400,
  INVALID_MEDIA_ID: 400,
  INVALID_PUBLISHED_AT: 400,
  INVALID_SCHEDULE: 400,
  INVALID_BLOCKS: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  SECRET_KEY_IN_QUERY: 400,
  AMBIGUOUS_SLUG: 400,
  NOTHING_EDITABLE: 400,
  ALLOWED_ORIGINS_REQUIRED: 400,
  INVALID_ORIGIN: 400,
  SCOPE_NOT_ALLOWED: 400,
  /** A webhook URL that is not an absolute https URL without credentials or fragment. */
  INVALID_WEBHOOK_URL: 400,
  /** An import line that is not JSON. */
  INVALID_JSON: 400,
  /** Analytics `from`/`to`/`days` outside their rules. */
  INVALID_WINDOW: 400,
  INVALID_OFFSET: 400,
  /** A page view the collection endpoint cannot read (body, path). */
  INVALID_PAGE_VIEW: 400,
  // Forms and leads: a lead filter, a form definition, a submitted field (`details.field` names it).
  INVALID_FORM_ID: 400,
  INVALID_DATE: 400,
  INVALID_ORDER: 400,
  FORM_ID_REQUIRED: 400,
  INVALID_FORM_FIELDS: 400,
  INVALID_FIELD: 400,
  // 401, 403
  UNAUTHENTICATED: CommonErrors.UNAUTHENTICATED.status,
  TOKEN_EXPIRED: CommonErrors.TOKEN_EXPIRED.status,
  METHOD_NOT_ALLOWED: CommonErrors.METHOD_NOT_ALLOWED.status,
  INSUFFICIENT_SCOPE: 403,
  ORIGIN_NOT_ALLOWED: 403,
  SECRET_KEY_REQUIRED: 403,
  /** Analytics collection takes the site's public (pk_) key only. */
  PUBLIC_KEY_REQUIRED: 403,
  /**
   * A signed-in person on the dashboard routes (issue 34) lacks the site permission the operation needs:
   * `details.missing` names it (src/lib/site-permissions.ts).
   */
  FORBIDDEN: 403,
  // 404: not found, not public, or another site's resource (one body)
  NOT_FOUND: CommonErrors.NOT_FOUND.status,
  // 409
  SLUG_TAKEN: 409,
  POST_NOT_PUBLISHED: 409,
  /** `review_requested: true` on a post that is (or becomes) anything but a draft: only drafts await review. */
  POST_NOT_DRAFT: 409,
  /** The post kept changing concurrently for as long as an edit retries; retry. */
  EDIT_CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  /** The site already has the most webhooks it may have (20). */
  WEBHOOK_LIMIT_REACHED: 409,
  // 412, beyond the spec's table (issue 11): If-Match named a revision of the post that is not current.
  PRECONDITION_FAILED: 412,
  // 413, 415
  PAYLOAD_TOO_LARGE: CommonErrors.PAYLOAD_TOO_LARGE.status,
  UNSUPPORTED_MEDIA_TYPE: CommonErrors.UNSUPPORTED_MEDIA_TYPE.status,
  // 422: valid but unprocessable
  /**
   * POST /v1/posts (and an import line, which has its shape): a body field the schema does not declare
   * (issue 33: nothing is dropped silently). The spec lists 422, not 400, for that operation's validation
   * failures; `details.path` names the field (src/lib/input-issues.ts). Elsewhere an unknown field is 400
   * BAD_REQUEST.
   */
  UNKNOWN_FIELD: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  NO_AUTHORSHIP_CONTEXT: 422,
  /**
   * A signed-in person creates a post (issue 34) without a display name on their account: their posts are
   * bylined with it, never with an e-mail address. `details.field` is `display_name`; the detail says where
   * to set it (the account page, PATCH /api/v1/auth/me).
   */
  DISPLAY_NAME_REQUIRED: 422,
  UNKNOWN_POST_TYPE: 422,
  UNKNOWN_MEDIA: 422,
  /** author_slug names no author persona of the site. */
  UNKNOWN_AUTHOR: 422,
  RESTRICTED_NOT_IMPORTABLE: 422,
  /** Lead list: `form_id` names no form of the key's site; `de` after `ate`. */
  UNKNOWN_FORM: 422,
  INVALID_DATE_RANGE: 422,
  /** A webhook URL whose host is, or resolves to, a private, loopback or link-local address. */
  WEBHOOK_URL_NOT_PUBLIC: 422,
  /** MCP upload_media_from_url: image ingest refused the URL for good (not public, 4xx, not an image, …). */
  MEDIA_URL_REFUSED: 422,
  // 429, 5xx
  RATE_LIMITED: 429,
  INTERNAL_ERROR: CommonErrors.INTERNAL_ERROR.status,
  STORED_BODY_UNRECOGNIZED: 502,
  /** The sites service (owner of the settings document) did not answer a settings or SEO read or write. */
  SITES_UNAVAILABLE: 502,
  /** MCP upload_media_from_url: the image could not be fetched now (timeout, 5xx, DNS); retry later. */
  MEDIA_URL_UNAVAILABLE: 502,
  /**
   * A write of a site that is moving between content groups (issue 38; a deliberate deviation: the spec lists
   * 503 only for readiness): its old group refuses it, nothing was written; `Retry-After` says when to retry.
   */
  SITE_MOVING: 503,
});

export type ContentErrorName = keyof typeof ContentErrors;

const errors = errorsOf(ContentErrors);

/** Throws the catalogue's error `name`; `options` is the wire `detail` or the full problem options. */
export const fail: Fail<ContentErrorName> = errors.fail;
/** The catalogue's error `name`, for code that hands the error on instead of throwing it here. */
export const problem = errors.problem;
