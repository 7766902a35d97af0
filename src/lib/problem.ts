import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { callLogger, errorFields } from "./log";

/** An error status a catalogue may give (4xx and 5xx). */
export type ErrorStatus = ContentfulStatusCode;

declare const catalogued: unique symbol;

/** One entry of a service's error catalogue: the wire `code` and its one HTTP status. */
export interface ErrorEntry {
  readonly code: string;
  readonly status: ErrorStatus;
  /** Only `defineErrors` makes entries, so an error can't be thrown with a code outside a catalogue. */
  readonly [catalogued]: true;
}

type EntrySpec = ErrorStatus | { readonly code: string; readonly status: ErrorStatus };

/**
 * A closed error catalogue: `NAME: status` (the code is the name) or, for a code the spec gives two
 * statuses (identity's `EMAIL_NOT_VERIFIED`: 403 at login, 409 on a primary change), one explicitly
 * named entry per status: `EMAIL_NOT_VERIFIED_AT_LOGIN: { code: "EMAIL_NOT_VERIFIED", status: 403 }`.
 */
export function defineErrors<const T extends Record<string, EntrySpec>>(
  entries: T,
): { readonly [K in keyof T]: ErrorEntry } {
  const out: Record<string, ErrorEntry> = {};
  for (const [name, spec] of Object.entries(entries)) {
    out[name] = (typeof spec === "number" ? { code: name, status: spec } : { ...spec }) as ErrorEntry;
  }
  return out as { readonly [K in keyof T]: ErrorEntry };
}

export interface ProblemOptions {
  detail?: string;
  details?: Record<string, unknown>;
  /** Extra top-level members (sites' `invalid_images`). */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Internal reason: logged, never sent. */
  reason?: string;
}

/** The one error type of every service: made from a catalogue entry, rendered once as RFC 9457 problem+json. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly detail: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly extensions: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(entry: ErrorEntry, options: ProblemOptions = {}) {
    super(options.reason ?? options.detail ?? entry.code);
    this.status = entry.status;
    this.code = entry.code;
    this.detail = options.detail;
    this.details = options.details;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}

/** Errors every service can answer: the app factory's own (unparseable input, unknown route, redacted 500). */
/** The one detail of a body that is not JSON, on every service (400 BAD_REQUEST). */
export const NOT_JSON_DETAIL = "The body is not valid JSON.";

export const CommonErrors = defineErrors({
  BAD_REQUEST: 400,
  /** No credential, or one that does not verify (src/lib/bearer.ts: with its `WWW-Authenticate`). */
  UNAUTHENTICATED: 401,
  /** An access token that verifies but expired: the client refreshes (src/lib/bearer.ts). */
  TOKEN_EXPIRED: 401,
  NOT_FOUND: 404,
  /** A documented path asked with a method it does not serve (with `Allow`). */
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
});

/** A catalogue's `fail`: throws. Declared with this type so that TypeScript knows code after it is unreachable. */
export type Fail<Name extends string> = (name: Name, options?: string | ProblemOptions) => never;

/**
 * The only way a service makes its errors: `fail("EMAIL_TAKEN", "detail")` throws, `problem(...)` returns
 * the error for the few places that hand it on (a factory used in several throws, a per-line import result).
 */
export function errorsOf<C extends Record<string, ErrorEntry>>(catalogue: C) {
  function problem(name: keyof C & string, options?: string | ProblemOptions): ApiError {
    const entry = catalogue[name];
    if (!entry) throw new Error(`error ${name} is not in the catalogue`);
    return new ApiError(entry, typeof options === "string" ? { detail: options } : options);
  }
  function fail(name: keyof C & string, options?: string | ProblemOptions): never {
    throw problem(name, options);
  }
  return { problem, fail };
}

const common = errorsOf(CommonErrors);
const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  423: "Locked",
  428: "Precondition Required",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

export function problemBody(
  status: number,
  code: string,
  detail?: string,
  details?: Record<string, unknown>,
) {
  return {
    type: "about:blank",
    title: titles[status] ?? "Error",
    status,
    code,
    ...(detail !== undefined ? { detail } : {}),
    ...(details !== undefined ? { details } : {}),
  };
}

export function problemResponse(error: ApiError): Response {
  const body = { ...problemBody(error.status, error.code, error.detail, error.details), ...error.extensions };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { "content-type": "application/problem+json", ...error.headers },
  });
}

/** Hono `onError`: ApiError as problem+json; anything else a redacted 500 (the stack goes to the log only). */
export function handleError(err: Error, c: Context): Response {
  const log = c.get("log") ?? callLogger("unknown", c.req.header("x-request-id"));
  const at = { method: c.req.method, path: c.req.path };
  if (err instanceof ApiError) {
    log[err.status >= 500 ? "error" : "info"]("request_failed", {
      ...at,
      status: err.status,
      code: err.code,
      reason: err.message,
    });
    return problemResponse(err);
  }
  const status = (err as { status?: unknown }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    // Hono's own HTTPExceptions (e.g. a body the JSON parser refused). Its validator's "Malformed JSON in
    // request body" is said in the platform's one wording (NOT_JSON_DETAIL), as the hand parsers say it.
    const name =
      status === 413 ? "PAYLOAD_TOO_LARGE" : status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : "BAD_REQUEST";
    const detail = /^Malformed JSON/.test(err.message) ? NOT_JSON_DETAIL : err.message;
    const error = common.problem(name, detail);
    log.info("request_failed", { ...at, status: error.status, code: error.code, reason: err.message });
    return problemResponse(error);
  }
  log.error("unhandled_error", { ...at, status: 500, code: "INTERNAL_ERROR", ...errorFields(err) });
  return problemResponse(common.problem("INTERNAL_ERROR", "An internal error occurred."));
}

export function notFoundResponse(): Response {
  return problemResponse(common.problem("NOT_FOUND", "No such resource."));
}
