/**
 * Structured logs: one JSON object per line, `{"level","service","request_id","trace_id","event",...fields}`.
 * A logger carries the ids of what it runs for (`request_id` of an HTTP request, `batch_id` of a queue
 * batch, `run_id` of a cron run) so every line of that unit of work can be found together; `trace_id` is
 * the W3C trace the line was written in (src/lib/trace.ts), the same in every service a request crossed.
 * This module is the only place that writes to the console.
 */
import type { Context } from "hono";
import { routePath } from "hono/route";
import { newId } from "./ids";
import { currentTrace } from "./trace";

export type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;
/** Where finished lines go; the default is the console (Workers Logs reads the level from the call). */
export type LogSink = (level: LogLevel, line: string) => void;

export interface Logger {
  /** The `request_id` of this logger's lines; undefined for a batch or cron run logger. */
  readonly requestId: string | undefined;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** A logger whose lines also carry `fields` (e.g. `{ message_id }` inside a batch). */
  with(fields: LogFields): Logger;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The request's logger, set first by `createServiceApp` (and by the gateway). */
    log: Logger;
  }
}

/**
 * Development only (`DEV_OUTBOX=true`, turned on by the service's first request): the isolate's most recent
 * lines, kept beside the console so a dev route can list one trace's lines (src/lib/metrics.ts).
 */
const CAPTURE_LIMIT = 2000;
let captured: string[] | null = null;

export function captureLogs(on: boolean) {
  if (on) captured ??= [];
  else captured = null;
}

/** The captured lines (parsed), of one trace when `traceId` is given; empty when capture is off. */
export function capturedLogs(traceId?: string): Record<string, unknown>[] {
  const lines = (captured ?? []).map((line) => JSON.parse(line) as Record<string, unknown>);
  return traceId ? lines.filter((line) => line.trace_id === traceId) : lines;
}

export const consoleSink: LogSink = (level, line) => {
  if (captured) {
    captured.push(line);
    if (captured.length > CAPTURE_LIMIT) captured.splice(0, captured.length - CAPTURE_LIMIT);
  }
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
};

/** Members every line has; fields never overwrite them. */
const RESERVED = new Set(["level", "service", "event"]);

export function createLogger(options: {
  service: string;
  /** Bound to every line: the ids of the unit of work (`request_id`, `batch_id`, `run_id`) and more. */
  context: LogFields;
  sink?: LogSink;
  /** Told the event of every line written (the request logger's "did this request log its failure"). */
  onWrite?: (event: string) => void;
}): Logger {
  const sink = options.sink ?? consoleSink;
  const context = options.context;
  const write = (level: LogLevel, event: string, fields: LogFields = {}) => {
    const line: LogFields = { level, service: options.service };
    for (const [key, value] of Object.entries(context)) if (!RESERVED.has(key)) line[key] = value;
    if (line.trace_id === undefined) {
      const trace = currentTrace();
      if (trace) line.trace_id = trace.traceId;
    }
    line.event = event;
    for (const [key, value] of Object.entries(fields)) {
      if (!RESERVED.has(key) && value !== undefined) line[key] = value;
    }
    sink(level, JSON.stringify(line));
    options.onWrite?.(event);
  };
  return {
    requestId: typeof context.request_id === "string" ? context.request_id : undefined,
    info: (event, fields) => write("info", event, fields),
    warn: (event, fields) => write("warn", event, fields),
    error: (event, fields) => write("error", event, fields),
    with: (fields) => createLogger({ ...options, context: { ...context, ...fields } }),
  };
}

/** Ids the gateway accepts from a client and forwards; anything else is replaced by a new ULID. */
const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The request id of `X-Request-Id` (set by the gateway on every request), or a new ULID. */
export function requestIdFrom(headers: Headers): string {
  const incoming = headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : newId();
}

/** The events of a request's own failure line (src/lib/problem.ts): the request then needs no other. */
const FAILURE_EVENTS = new Set(["request_failed", "unhandled_error"]);

/** A Hono route pattern (`/posts/:id`) in the OpenAPI spelling (`/posts/{id}`); `unmatched` for none. */
export function routeLabel(pattern: string): string {
  if (!pattern || pattern === "*" || pattern === "/*") return "unmatched";
  return pattern.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");
}

/**
 * Hono middleware: `c.get("log")` for the rest of the request. Every request leaves one line of its own:
 * its failure (`request_failed`, `unhandled_error`) or else `request_done` with the matched route pattern
 * (never the raw path), method, status and duration, so each service a trace crossed has a line with
 * its `trace_id` (src/lib/trace.ts). `route` names the answer's route when the caller knows it better.
 */
export function requestLogger(service: string, route?: (c: Context) => string) {
  return async function requestLogger(c: Context, next: () => Promise<void>) {
    let failureLogged = false;
    const log = createLogger({
      service,
      // The id the gateway already chose for this request, else the header's (a service's case).
      context: {
        request_id: (c.var as { requestId?: string }).requestId ?? requestIdFrom(c.req.raw.headers),
      },
      onWrite: (event) => {
        if (FAILURE_EVENTS.has(event)) failureLogged = true;
      },
    });
    c.set("log", log);
    const started = Date.now();
    await next();
    if (failureLogged || c.req.path.startsWith("/__dev/")) return;
    log.info("request_done", {
      method: c.req.method,
      route: route ? route(c) : routeLabel(routePath(c)),
      status: c.res.status,
      duration_ms: Date.now() - started,
    });
  };
}

/**
 * A logger for work no request started (an RPC method, a Durable Object): the caller's request id when
 * it passed one, else a new ULID.
 */
export function callLogger(service: string, requestId?: string | null): Logger {
  const id = requestId && REQUEST_ID.test(requestId) ? requestId : newId();
  return createLogger({ service, context: { request_id: id } });
}

/** A logger for a queue batch: a new `batch_id`, the queue and the message count on every line. */
export function batchLogger(service: string, batch: { queue: string; messages: readonly unknown[] }): Logger {
  return createLogger({
    service,
    context: { batch_id: newId(), queue: batch.queue, messages: batch.messages.length },
  });
}

/** A logger for one cron run (`run_id`); `cron` is the trigger's schedule when known. */
export function runLogger(service: string, cron?: string): Logger {
  return createLogger({ service, context: { run_id: newId(), ...(cron ? { cron } : {}) } });
}

/** The error of a log line: its message and the first frames of its stack (never sent on the wire). */
export function errorFields(err: unknown): { error: string; stack?: string[] } {
  if (!(err instanceof Error)) return { error: String(err) };
  const stack = err.stack
    ?.split("\n")
    .slice(1, 6)
    .map((frame) => frame.trim());
  return { error: err.message, ...(stack && stack.length > 0 ? { stack } : {}) };
}
