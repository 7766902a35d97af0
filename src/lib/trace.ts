/**
 * W3C trace context (https://www.w3.org/TR/trace-context/): one `traceparent` follows a request from the
 * gateway through every service binding request, RPC call and queue message, so the log lines of every
 * service it touched share one `trace_id` (docs/decisions/tracing.md).
 *
 * The trace of the work running now lives in an `AsyncLocalStorage` (nodejs_compat): the gateway and each
 * service's app enter it per request, an RPC method per call, a queue consumer per batch, a cron per run;
 * the logger (src/lib/log.ts) and the outgoing carriers (`rpc()`, `tracedMessage`) read it from there, so no
 * function between them takes a parameter for it. An incoming `traceparent` is only ever a correlation id:
 * an invalid one is replaced, and nothing is decided by it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Context } from "hono";

export const TRACEPARENT_HEADER = "traceparent";

export interface TraceContext {
  /** 32 lowercase hex digits, never all zeros. */
  traceId: string;
  /** This hop's span: 16 lowercase hex digits, never all zeros. */
  spanId: string;
  /** The caller's span, when the trace was continued. */
  parentSpanId: string | null;
  /** The trace flags (2 hex digits; `01` = sampled). */
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

function randomHex(bytes: number): string {
  const out = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (const b of out) hex += b.toString(16).padStart(2, "0");
  return hex;
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomHex(bytes);
    if (/[^0]/.test(hex)) return hex;
  }
}

/**
 * The parts of a valid `traceparent`, else null. Version `00` must be exactly 55 characters; a later
 * version (never `ff`) is read by its first four fields, as the recommendation asks.
 */
export function parseTraceparent(
  value: string | null | undefined,
): { traceId: string; spanId: string; flags: string } | null {
  if (!value) return null;
  const text = value.trim();
  const match = TRACEPARENT.exec(text);
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff") return null;
  if (version === "00" && rest !== undefined) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId: traceId!, spanId: spanId!, flags: flags! };
}

export function formatTraceparent(trace: Pick<TraceContext, "traceId" | "spanId" | "flags">): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/** A new trace: random 16-byte trace id, 8-byte span id, sampled. */
export function newTrace(): TraceContext {
  return { traceId: nonZeroHex(16), spanId: nonZeroHex(8), parentSpanId: null, flags: "01" };
}

/**
 * This hop's trace: the incoming one continued under a new span id when it is valid, else a new trace.
 * Only the sampled bit of the caller's flags is kept (the other bits are reserved).
 */
export function continueTrace(traceparent: string | null | undefined): TraceContext {
  const parent = parseTraceparent(traceparent);
  if (!parent) return newTrace();
  const flags = (Number.parseInt(parent.flags, 16) & 1).toString(16).padStart(2, "0");
  return { traceId: parent.traceId, spanId: nonZeroHex(8), parentSpanId: parent.spanId, flags };
}

const store = new AsyncLocalStorage<TraceContext>();

/** Runs `fn` as `trace` (the logger and the carriers read it while it runs). */
export function runInTrace<T>(trace: TraceContext, fn: () => T): T {
  return store.run(trace, fn);
}

/** The trace of the work running now, or undefined outside any. */
export function currentTrace(): TraceContext | undefined {
  return store.getStore();
}

/** The `traceparent` to pass on from here (this hop's span is the callee's parent), or null outside a trace. */
export function currentTraceparent(): string | null {
  const trace = store.getStore();
  return trace ? formatTraceparent(trace) : null;
}

/**
 * A queue message body that carries the current trace: an object body gets a `traceparent` member beside
 * its own (never over one it has); anything else, or outside a trace, goes as it is.
 */
export function tracedMessage<T>(body: T): T {
  const traceparent = currentTraceparent();
  if (!traceparent || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  if ("traceparent" in body) return body;
  return { ...body, traceparent } as T;
}

/** The `traceparent` a queue message body carries, or null. */
export function messageTraceparent(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const value = (body as { traceparent?: unknown }).traceparent;
  return typeof value === "string" ? value : null;
}

/** The RPC argument that carries the caller's trace (`rpc()` appends it; `traceRpcMethods` takes it off). */
export interface TraceCarrier {
  __traceparent: string;
}

export function isTraceCarrier(value: unknown): value is TraceCarrier {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { __traceparent?: unknown }).__traceparent === "string" &&
    Object.keys(value).length === 1
  );
}

/** Sets the answer's `traceparent` (re-wrapping a response whose headers are immutable). */
export function setTraceparent(c: Context, value: string) {
  try {
    c.res.headers.set(TRACEPARENT_HEADER, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(TRACEPARENT_HEADER, value);
  }
}
