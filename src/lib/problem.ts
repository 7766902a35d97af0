import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { callLogger, errorFields } from "./log";

/** The one error type of every service: thrown anywhere, rendered once as RFC 9457 problem+json. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly detail: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** Extra top-level members (sites' `invalid_images`). */
  readonly extensions: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    options: {
      detail?: string;
      details?: Record<string, unknown>;
      extensions?: Record<string, unknown>;
      headers?: Record<string, string>;
      /** Internal reason: logged, never sent. */
      reason?: string;
    } = {},
  ) {
    super(options.reason ?? options.detail ?? code);
    this.status = status;
    this.code = code;
    this.detail = options.detail;
    this.details = options.details;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}

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
    // Hono's own HTTPExceptions (e.g. a body the JSON parser refused).
    log.info("request_failed", { ...at, status, code: "BAD_REQUEST", reason: err.message });
    return problemResponse(
      new ApiError(status as ContentfulStatusCode, "BAD_REQUEST", { detail: err.message }),
    );
  }
  log.error("unhandled_error", { ...at, status: 500, code: "INTERNAL_ERROR", ...errorFields(err) });
  return problemResponse(new ApiError(500, "INTERNAL_ERROR", { detail: "An internal error occurred." }));
}

export function notFoundResponse(): Response {
  return problemResponse(new ApiError(404, "NOT_FOUND", { detail: "No such resource." }));
}
