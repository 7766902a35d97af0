/**
 * Error codes of the content service, mirroring the spec's Errors section. Every 4xx/5xx the service
 * sends uses one of these as `code` in the problem+json body.
 */
export const ContentErrors = {
  BAD_REQUEST: { status: 400, meaning: "Invalid parameter or body" },
  INVALID_LIMIT: { status: 400, meaning: "limit outside its range (never clamped)" },
  INVALID_CURSOR: { status: 400, meaning: "cursor corrupt, tampered or from another listing" },
  INVALID_STATUS: { status: 400, meaning: "unknown or non-listable status value" },
  INVALID_POST_TYPE: { status: 400, meaning: "malformed post_type slug" },
  SECRET_KEY_IN_QUERY: { status: 400, meaning: "a ck_ key was sent in the key query parameter" },
  AMBIGUOUS_SLUG: { status: 400, meaning: "slug exists in several languages; send ?language=" },
  NOTHING_EDITABLE: { status: 400, meaning: "the body contains no editable field" },
  UNAUTHENTICATED: { status: 401, meaning: "key (or staff session) missing or invalid" },
  INSUFFICIENT_SCOPE: { status: 403, meaning: "the key lacks the scope the operation requires" },
  ORIGIN_NOT_ALLOWED: { status: 403, meaning: "pk_ key used from an origin outside its allowlist" },
  SECRET_KEY_REQUIRED: { status: 403, meaning: "pk_ key used where only a ck_ key is accepted" },
  NOT_FOUND: { status: 404, meaning: "not found, not public, or another site's resource" },
  SLUG_TAKEN: { status: 409, meaning: "an explicit slug already exists for (site, language)" },
  POST_NOT_PUBLISHED: { status: 409, meaning: "unpublish of a post that is not published" },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, meaning: "a request with this Idempotency-Key is still running" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, meaning: "Idempotency-Key reused with a different body" },
  NO_AUTHORSHIP_CONTEXT: { status: 422, meaning: "the key has no authorship context (legacy key)" },
  RATE_LIMITED: { status: 429, meaning: "quota exceeded; Retry-After sent" },
  STORED_BODY_UNRECOGNIZED: { status: 502, meaning: "stored post body in an unrecognized format" },
  NOT_READY: { status: 503, meaning: "readiness probe: dependencies not loaded" },
} as const;

export type ContentErrorCode = keyof typeof ContentErrors;
