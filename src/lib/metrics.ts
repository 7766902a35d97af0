/**
 * Metrics to Workers Analytics Engine (docs/operations.md, "Metrics"): `count(name, labels)` and
 * `timing(name, ms, labels)` write one data point each to the Worker's `METRICS` dataset. The point's
 * layout is fixed, so an operator's SQL names columns, never guesses them:
 *
 * - `index1`: `<service>:<name>` (the sampling key)
 * - `blob1` service, `blob2` name, then one blob per label: `blob3` route (the matched route pattern,
 *   never the raw path), `blob4` method, `blob5` status, `blob6` outcome, `blob7` queue, `blob8` cron
 * - `double1`: the value (1 for a count, milliseconds for a timing)
 *
 * Where the binding is absent (tests, `npm start`: Miniflare's local dataset drops every write), or in
 * development (`DEV_OUTBOX=true`), the isolate also keeps its recent points in memory, which
 * `GET /__dev/telemetry` of each service lists and the gateway's `/__dev/metrics` aggregates.
 */
import { captureLogs, createLogger, errorFields } from "./log";
import {
  continueTrace,
  isTraceCarrier,
  messageTraceparent,
  newTrace,
  parseTraceparent,
  runInTrace,
  type TraceContext,
} from "./trace";

export const LABELS = ["route", "method", "status", "outcome", "queue", "cron"] as const;
export type MetricLabels = Partial<Record<(typeof LABELS)[number], string | number>>;

export interface MetricPoint {
  at: string;
  service: string;
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface MetricsEnv {
  METRICS?: AnalyticsEngineDataset;
  DEV_OUTBOX?: string;
}

const KEEP = 2000;
let service = "unknown";
let dataset: AnalyticsEngineDataset | undefined;
let keepLocal = true;
const recent: MetricPoint[] = [];

/**
 * Binds the module to a Worker's service name and env (called on every request, RPC call, batch and cron
 * run; the env of an isolate does not change). Development also turns on the log capture.
 */
export function useMetrics(name: string, env: object | undefined) {
  const own = env as MetricsEnv | undefined;
  service = name;
  dataset = own?.METRICS;
  const dev = own?.DEV_OUTBOX === "true";
  keepLocal = dev || !dataset;
  captureLogs(dev);
}

function labelsOf(labels: MetricLabels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of LABELS) if (labels[key] !== undefined) out[key] = String(labels[key]);
  return out;
}

function write(name: string, value: number, labels: MetricLabels) {
  const own = labelsOf(labels);
  try {
    dataset?.writeDataPoint({
      indexes: [`${service}:${name}`],
      blobs: [service, name, ...LABELS.map((key) => own[key] ?? "")],
      doubles: [value],
    });
  } catch {
    // A metric never fails the work it measures.
  }
  if (!keepLocal) return;
  recent.push({ at: new Date().toISOString(), service, name, labels: own, value });
  if (recent.length > KEEP) recent.splice(0, recent.length - KEEP);
}

/** One occurrence (or `value` of them) of `name`. */
export function count(name: string, labels: MetricLabels = {}, value = 1) {
  write(name, value, labels);
}

/** A duration of `name` in milliseconds. */
export function timing(name: string, ms: number, labels: MetricLabels = {}) {
  write(name, Math.max(0, Math.round(ms)), labels);
}

/** The isolate's kept points (development and tests). */
export function recentPoints(): MetricPoint[] {
  return [...recent];
}

/** Routes whose answer finishes a sign-in step (identity), counted as `sign_in` by outcome. */
const SIGN_IN_ROUTES = new Set([
  "/api/v1/auth/login",
  "/api/v1/auth/login/mfa/verify",
  "/api/v1/auth/login/passkey/finish",
  "/api/v1/auth/magic-link/verify",
  "/api/v1/auth/sso/callback",
]);

/** The outcome of an answer by its status: ok, refused (4xx but 429), throttled (429), error (5xx). */
export function outcomeOf(status: number): string {
  if (status >= 500) return "error";
  if (status === 429) return "throttled";
  if (status >= 400) return "refused";
  return "ok";
}

/** The metrics of one answered request: `request` (route, method, status, duration); identity's sign-ins. */
export function recordRequest(route: string, method: string, status: number, ms: number) {
  timing("request", ms, { route, method, status });
  if (method === "POST" && SIGN_IN_ROUTES.has(route)) count("sign_in", { route, outcome: outcomeOf(status) });
}

export interface AggregatedMetric {
  service: string;
  name: string;
  labels: Record<string, string>;
  count: number;
  sum: number;
  max: number;
}

/** Points grouped by service, name and labels (the dev route's view): count, sum and max of the values. */
export function aggregate(points: readonly MetricPoint[]): AggregatedMetric[] {
  const groups = new Map<string, AggregatedMetric>();
  for (const point of points) {
    const key = JSON.stringify([point.service, point.name, point.labels]);
    const group = groups.get(key) ?? {
      service: point.service,
      name: point.name,
      labels: point.labels,
      count: 0,
      sum: 0,
      max: 0,
    };
    group.count += 1;
    group.sum += point.value;
    group.max = Math.max(group.max, point.value);
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) => a.service.localeCompare(b.service) || a.name.localeCompare(b.name) || b.count - a.count,
  );
}

/** The `traceparent` of a queue batch: its first message's that carries one. */
function batchTraceparent(batch: MessageBatch<unknown> | undefined): string | null {
  for (const message of batch?.messages ?? []) {
    const traceparent = messageTraceparent(message.body);
    if (parseTraceparent(traceparent)) return traceparent;
  }
  return null;
}

/** A message body without the `traceparent` the producer added (`tracedMessage`): the consumer's own shape. */
function untracedBody(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("traceparent" in body))
    return body;
  const { traceparent: _traceparent, ...own } = body as Record<string, unknown>;
  return own;
}

/**
 * The batch as its consumer sees it: each body without its trace carrier (a webhook's payload, a
 * development record, a strict parse never meet it), every other member and method the runtime's.
 */
function untracedBatch<T>(batch: MessageBatch<T>): MessageBatch<T> {
  if (!batch.messages.some((message) => untracedBody(message.body) !== message.body)) return batch;
  const messages = batch.messages.map(
    (message) =>
      ({
        id: message.id,
        timestamp: message.timestamp,
        attempts: message.attempts,
        body: untracedBody(message.body) as T,
        ack: () => message.ack(),
        retry: (options?: QueueRetryOptions) => message.retry(options),
      }) as Message<T>,
  );
  return {
    queue: batch.queue,
    metadata: batch.metadata,
    messages,
    ackAll: () => batch.ackAll(),
    retryAll: (options?: QueueRetryOptions) => batch.retryAll(options),
  } as MessageBatch<T>;
}

/** Per message of a batch: `queue_retry` for a redelivery, `queue_dead_letter` on a dead-letter queue. */
function recordBatch(batch: MessageBatch<unknown> | undefined) {
  if (!batch) return;
  for (const message of batch.messages) {
    if (batch.queue.endsWith("-dlq")) count("queue_dead_letter", { queue: batch.queue.slice(0, -4) });
    else if (message.attempts > 1) count("queue_retry", { queue: batch.queue });
  }
}

/** The lifecycle handlers a Worker's runtime calls; every other method of an entrypoint is an RPC method. */
const HANDLERS = new Set(["constructor", "fetch", "connect", "tail", "trace", "alarm", "webSocketMessage"]);

async function settled<T>(
  work: () => T | Promise<T>,
  after: (ok: boolean, err?: unknown) => void,
): Promise<T> {
  try {
    const result = await work();
    after(true);
    return result;
  } catch (err) {
    after(false, err);
    throw err;
  }
}

/**
 * Instruments a `WorkerEntrypoint` class of `service`: every RPC method, `queue` and `scheduled` run in a
 * trace (src/lib/trace.ts), an RPC call continuing its caller's (the last argument `rpc()` appends, taken
 * off here before the method sees its arguments), a queue batch its first traced message's, a cron run a
 * new one; a batch counts its retries and dead letters, a cron run `cron_run` by outcome. `fetch` is the
 * app's (`createServiceApp`).
 */
export function instrumentEntrypoint(entrypoint: { prototype: object }, serviceName: string): void {
  const proto = entrypoint.prototype;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (HANDLERS.has(name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    const method = descriptor?.value;
    if (typeof method !== "function") continue;
    const wrapped = function (this: { env?: MetricsEnv }, ...args: unknown[]) {
      useMetrics(serviceName, this?.env);
      let trace: TraceContext;
      if (name === "queue") {
        const batch = args[0] as MessageBatch<unknown> | undefined;
        trace = continueTrace(batchTraceparent(batch));
        return runInTrace(trace, () => {
          recordBatch(batch);
          return method.apply(this, [batch ? untracedBatch(batch) : batch, ...args.slice(1)]);
        });
      }
      if (name === "scheduled") {
        const cron = (args[0] as ScheduledController | undefined)?.cron ?? "";
        return runInTrace(newTrace(), () =>
          settled(
            () => method.apply(this, args),
            (ok) => count("cron_run", { cron, outcome: ok ? "ok" : "failed" }),
          ),
        );
      }
      const last = args.at(-1);
      if (isTraceCarrier(last)) {
        args.pop();
        trace = continueTrace(last.__traceparent);
      } else trace = newTrace();
      return runInTrace(trace, () => {
        // One line per call, as `request_done` per request: each service a trace crossed has its line.
        const log = createLogger({ service: serviceName, context: {} });
        const started = Date.now();
        return settled(
          () => method.apply(this, args),
          (ok, err) => {
            const duration_ms = Date.now() - started;
            timing("rpc", duration_ms, { route: name, outcome: ok ? "ok" : "failed" });
            if (ok) log.info("rpc_done", { method: name, duration_ms });
            else log.error("rpc_failed", { method: name, duration_ms, ...errorFields(err) });
          },
        );
      });
    };
    Object.defineProperty(wrapped, "name", { value: name });
    Object.defineProperty(proto, name, { ...descriptor, value: wrapped });
  }
}
