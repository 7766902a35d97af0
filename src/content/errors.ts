/**
 * Error codes of the content service, mirroring the spec's Errors section: every 4xx/5xx problem+json
 * body this service sends carries one of these as `code` (import results use them per line too).
 */
export const ContentErrors = {
  // 400: invalid parameter or body
  BAD_REQUEST: { status: 400, meaning: "Malformed body or parameter (zod / JSON / multipart)" },
  INVALID_LIMIT: { status: 400, meaning: "limit outside its range (never clamped)" },
  INVALID_CURSOR: { status: 400, meaning: "cursor corrupt, tampered or from another listing" },
  INVALID_STATUS: { status: 400, meaning: "status filter unknown, empty or `deleted`" },
  INVALID_POST_TYPE: { status: 400, meaning: "malformed post_type slug" },
  INVALID_SINCE: { status: 400, meaning: "since is not RFC 3339" },
  INVALID_LANGUAGE: { status: 400, meaning: "language is not a BCP-47 tag" },
  INVALID_SLUG: { status: 400, meaning: "slug malformed or shaped like an id" },
  INVALID_TAXONOMY: { status: 400, meaning: "category_slugs / tag_slugs entries must be slugs" },
  INVALID_AUTHOR: { status: 400, meaning: "author_slug must be a slug" },
  INVALID_MEDIA_ID: { status: 400, meaning: "featured_image_id is not a ULID or UUID" },
  INVALID_PUBLISHED_AT: { status: 400, meaning: "published_at is not RFC 3339" },
  INVALID_SCHEDULE: { status: 400, meaning: "scheduled without a future published_at" },
  INVALID_BLOCKS: { status: 400, meaning: "blocks_json is not an Editor.js document" },
  INVALID_IDEMPOTENCY_KEY: { status: 400, meaning: "Idempotency-Key empty, too long or not visible ASCII" },
  SECRET_KEY_IN_QUERY: { status: 400, meaning: "a ck_ key was sent in the key query parameter" },
  AMBIGUOUS_SLUG: { status: 400, meaning: "slug exists in several languages; send ?language=" },
  NOTHING_EDITABLE: { status: 400, meaning: "the body contains no editable field" },
  ALLOWED_ORIGINS_REQUIRED: { status: 400, meaning: "public key without allowed_origins" },
  INVALID_ORIGIN: { status: 400, meaning: "allowed_origins entry is not an exact origin" },
  SCOPE_NOT_ALLOWED: { status: 400, meaning: "public key asked for a non-read scope" },
  INVALID_JSON: { status: 400, meaning: "import line is not JSON" },
  // 401, 403
  UNAUTHENTICATED: { status: 401, meaning: "key (or staff session) missing, invalid or revoked" },
  INSUFFICIENT_SCOPE: { status: 403, meaning: "the key lacks a scope the operation requires" },
  ORIGIN_NOT_ALLOWED: { status: 403, meaning: "pk_ key used from an origin outside its allowlist (or none)" },
  SECRET_KEY_REQUIRED: { status: 403, meaning: "pk_ key used where only a ck_ key is accepted" },
  // 404, 409
  NOT_FOUND: { status: 404, meaning: "not found, not public, or another site's resource (one body)" },
  SLUG_TAKEN: { status: 409, meaning: "an explicit slug already exists for (site, language)" },
  POST_NOT_PUBLISHED: { status: 409, meaning: "unpublish of a post that is not published" },
  EDIT_CONFLICT: { status: 409, meaning: "the post kept changing concurrently (16 attempts); retry" },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, meaning: "a request with this Idempotency-Key is still running" },
  // 413, 415
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: "upload or import above 8 MiB, import above 1000 lines, blocks > 1 MiB",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: "upload is not a supported image, or not multipart" },
  // 422
  IDEMPOTENCY_KEY_REUSED: { status: 422, meaning: "Idempotency-Key reused with a different body" },
  NO_AUTHORSHIP_CONTEXT: { status: 422, meaning: "the key has no authorship context (legacy key)" },
  UNKNOWN_POST_TYPE: { status: 422, meaning: "post_type is not a type of the site" },
  UNKNOWN_MEDIA: { status: 422, meaning: "featured_image_id is not a media asset of the site" },
  RESTRICTED_NOT_IMPORTABLE: { status: 422, meaning: "import line with access restricted" },
  // 429, 5xx
  RATE_LIMITED: { status: 429, meaning: "quota exceeded; Retry-After sent" },
  INTERNAL_ERROR: { status: 500, meaning: "redacted internal error" },
  STORED_BODY_UNRECOGNIZED: { status: 502, meaning: "stored post body in an unrecognized format" },
} as const;

export type ContentErrorCode = keyof typeof ContentErrors;
