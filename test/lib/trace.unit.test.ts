/** W3C trace context (src/lib/trace.ts) and its carriers: RPC (rpc(), instrumentEntrypoint) and queue messages. */
import { describe, expect, it } from "vitest";
import { capturedLogs, createLogger } from "../../src/lib/log";
import { aggregate, instrumentEntrypoint, recentPoints } from "../../src/lib/metrics";
import { rpc } from "../../src/lib/rpc";
import {
  continueTrace,
  currentTrace,
  formatTraceparent,
  messageTraceparent,
  newTrace,
  parseTraceparent,
  runInTrace,
  tracedMessage,
} from "../../src/lib/trace";

const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("parses version 00 exactly and refuses zero ids, version ff, bad lengths and upper case", () => {
    expect(parseTraceparent(VALID)).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      flags: "01",
    });
    for (const bad of [
      "",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
    ]) {
      expect(parseTraceparent(bad), bad).toBeNull();
    }
    // A later version is read by its first four fields.
    expect(parseTraceparent(`01-${VALID.slice(3)}-more`)?.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  });

  it("continues a valid trace under a new span; an invalid one starts a new trace", () => {
    const continued = continueTrace(VALID);
    expect(continued.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(continued.parentSpanId).toBe("00f067aa0ba902b7");
    expect(continued.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(continued.spanId).not.toBe("00f067aa0ba902b7");
    expect(formatTraceparent(continued)).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);

    const fresh = continueTrace("00-garbage");
    expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.parentSpanId).toBeNull();
    expect(newTrace().traceId).not.toBe(newTrace().traceId);
  });

  it("every log line written inside a trace carries its trace_id", () => {
    const lines: string[] = [];
    const log = createLogger({
      service: "t",
      context: { request_id: "abc12345" },
      sink: (_l, line) => lines.push(line),
    });
    log.info("outside");
    const trace = continueTrace(VALID);
    runInTrace(trace, () => log.info("inside"));
    expect(JSON.parse(lines[0]!)).not.toHaveProperty("trace_id");
    expect(JSON.parse(lines[1]!)).toEqual({
      level: "info",
      service: "t",
      request_id: "abc12345",
      trace_id: trace.traceId,
      event: "inside",
    });
  });
});

describe("carriers", () => {
  it("a queue message body gets the traceparent beside its own fields, only inside a trace", () => {
    expect(tracedMessage({ a: 1 })).toEqual({ a: 1 });
    const trace = newTrace();
    const body = runInTrace(trace, () => tracedMessage({ a: 1 }));
    expect(body).toEqual({ a: 1, traceparent: formatTraceparent(trace) });
    expect(messageTraceparent(body)).toBe(formatTraceparent(trace));
    expect(runInTrace(trace, () => tracedMessage("text"))).toBe("text");
  });

  it("rpc() appends the caller's trace to a call and a traceparent header to fetch; the callee takes it off", async () => {
    class Service {
      env = { DEV_OUTBOX: "true" };
      seen: unknown[] = [];
      async grant(input: { id: string }) {
        this.seen = [input, currentTrace()?.traceId, currentTrace()?.parentSpanId];
        return { ok: true, args: 1 };
      }
    }
    instrumentEntrypoint(Service, "callee");
    const callee = new Service();
    let headers: Headers | undefined;
    const binding = {
      grant: (...args: unknown[]) =>
        (callee.grant as (...a: unknown[]) => Promise<unknown>).apply(callee, args),
      fetch: async (request: Request) => {
        headers = request.headers;
        return new Response("ok");
      },
    } as unknown as Fetcher;
    const caller = newTrace();
    const result = await runInTrace(caller, () =>
      rpc<{ grant(input: { id: string }): Promise<unknown> }>(binding).grant({ id: "x" }),
    );
    expect(result).toEqual({ ok: true, args: 1 });
    expect(callee.seen).toEqual([{ id: "x" }, caller.traceId, caller.spanId]);
    await runInTrace(caller, () => rpc(binding).fetch("https://internal/x"));
    expect(headers?.get("traceparent")).toBe(formatTraceparent(caller));

    // The call left one rpc_done line in the caller's trace, and a timing point.
    expect(capturedLogs(caller.traceId)).toEqual([
      expect.objectContaining({ service: "callee", event: "rpc_done", method: "grant" }),
    ]);
    expect(aggregate(recentPoints()).find((m) => m.name === "rpc")).toMatchObject({
      service: "callee",
      labels: { route: "grant", outcome: "ok" },
      count: 1,
    });
  });

  it("a queue batch runs in its first traced message's trace and its consumer sees the bodies without it", async () => {
    const consumed: unknown[] = [];
    let traceId: string | undefined;
    const acked: string[] = [];
    class Worker {
      env = {};
      async queue(batch: MessageBatch<unknown>) {
        traceId = currentTrace()?.traceId;
        for (const message of batch.messages) {
          consumed.push(message.body);
          message.ack();
        }
      }
    }
    instrumentEntrypoint(Worker, "consumer");
    const producer = newTrace();
    const body = runInTrace(producer, () => tracedMessage({ kind: "x", id: "1" }));
    const message = (id: string, payload: unknown, attempts = 1) => ({
      id,
      timestamp: new Date(),
      attempts,
      body: payload,
      ack: () => acked.push(id),
      retry: () => {},
    });
    await new Worker().queue({
      queue: "q",
      metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
      messages: [message("m1", { plain: true }), message("m2", body, 2)],
      ackAll: () => {},
      retryAll: () => {},
    } as unknown as MessageBatch<unknown>);
    expect(traceId).toBe(producer.traceId);
    expect(consumed).toEqual([{ plain: true }, { kind: "x", id: "1" }]);
    expect(acked).toEqual(["m1", "m2"]);
    expect(recentPoints()).toContainEqual(
      expect.objectContaining({ service: "consumer", name: "queue_retry", labels: { queue: "q" } }),
    );
  });
});
