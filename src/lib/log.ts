/**
 * Structured logs: one JSON object per line, `{"level","service","request_id","event",...fields}`.
 * A logger carries the ids of what it runs for (`request_id` of an HTTP request, `batch_id` of a queue
 * batch, `run_id` of a cron run) so every line of that unit of work can be found together. This module
 * is the only place that writes to the console.
 */
import type { Context } from "hono";
import { newId } from "./ids";

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

export const consoleSink: LogSink = (level, line) => {
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
}): Logger {
  const sink = options.sink ?? consoleSink;
  const context = options.context;
  const write = (level: LogLevel, event: string, fields: LogFields = {}) => {
    const line: LogFields = { level, service: options.service };
    for (const [key, value] of Object.entries(context)) if (!RESERVED.has(key)) line[key] = value;
    line.event = event;
    for (const [key, value] of Object.entries(fields)) {
      if (!RESERVED.has(key) && value !== undefined) line[key] = value;
    }
    sink(level, JSON.stringify(line));
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

/** Hono middleware: `c.get("log")` for the rest of the request. */
export function requestLogger(service: string) {
  return async function requestLogger(c: Context, next: () => Promise<void>) {
    c.set("log", createLogger({ service, context: { request_id: requestIdFrom(c.req.raw.headers) } }));
    await next();
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
