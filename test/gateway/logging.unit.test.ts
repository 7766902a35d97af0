/** The shared logger (`src/lib/log.ts`) and the one error handler's log lines, shared by every worker. */
import { describe, expect, it, vi } from "vitest";
import { createServiceApp } from "../../src/lib/app";
import { isUlid } from "../../src/lib/ids";
import {
  batchLogger,
  callLogger,
  createLogger,
  errorFields,
  type LogLevel,
  requestIdFrom,
  runLogger,
} from "../../src/lib/log";
import { defineErrors, errorsOf } from "../../src/lib/problem";

function capture() {
  const lines: { level: LogLevel; line: Record<string, unknown> }[] = [];
  return {
    lines,
    sink: (level: LogLevel, line: string) => lines.push({ level, line: JSON.parse(line) }),
  };
}

/** Lines the default sink wrote, by console method, parsed. */
function spyConsole() {
  const spies = {
    info: vi.spyOn(console, "info").mockImplementation(() => {}),
    warn: vi.spyOn(console, "warn").mockImplementation(() => {}),
    error: vi.spyOn(console, "error").mockImplementation(() => {}),
  };
  const read = (method: keyof typeof spies) =>
    spies[method].mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>);
  return { read, restore: () => vi.restoreAllMocks() };
}

describe("createLogger", () => {
  it("writes one JSON object per line: level, service, the bound ids, event, then the fields", () => {
    const { lines, sink } = capture();
    const log = createLogger({ service: "content", context: { request_id: "abc12345" }, sink });
    log.info("post_created", { post_id: "p1", count: 2 });
    expect(lines).toEqual([
      {
        level: "info",
        line: {
          level: "info",
          service: "content",
          request_id: "abc12345",
          event: "post_created",
          post_id: "p1",
          count: 2,
        },
      },
    ]);
    expect(log.requestId).toBe("abc12345");
  });

  it("each level reaches the sink with its own level; fields never overwrite level, service or event", () => {
    const { lines, sink } = capture();
    const log = createLogger({ service: "sites", context: { request_id: "r-1234567" }, sink });
    log.warn("w", { level: "info", service: "x", event: "y", skipped: undefined });
    log.error("e");
    expect(lines.map((l) => [l.level, l.line.level, l.line.service, l.line.event])).toEqual([
      ["warn", "warn", "sites", "w"],
      ["error", "error", "sites", "e"],
    ]);
    expect(lines[0]!.line).not.toHaveProperty("skipped");
  });

  it("with() adds fields to every later line and keeps the request id", () => {
    const { lines, sink } = capture();
    const log = createLogger({ service: "sites", context: { request_id: "abc12345" }, sink });
    log.with({ message_id: "m1" }).info("swapped");
    log.info("plain");
    expect(lines.map((l) => l.line)).toEqual([
      { level: "info", service: "sites", request_id: "abc12345", message_id: "m1", event: "swapped" },
      { level: "info", service: "sites", request_id: "abc12345", event: "plain" },
    ]);
  });

  it("the default sink is the console, by level (the only console writer in src/)", () => {
    const console_ = spyConsole();
    try {
      const log = createLogger({ service: "identity", context: { request_id: "abc12345" } });
      log.info("i");
      log.warn("w");
      log.error("e");
      expect(console_.read("info")).toMatchObject([{ level: "info", event: "i" }]);
      expect(console_.read("warn")).toMatchObject([{ level: "warn", event: "w" }]);
      expect(console_.read("error")).toMatchObject([{ level: "error", event: "e" }]);
    } finally {
      console_.restore();
    }
  });
});

describe("ids of a unit of work", () => {
  it("the request id is the X-Request-Id the gateway set; absent or malformed, a new ULID", () => {
    expect(requestIdFrom(new Headers({ "x-request-id": "abc12345" }))).toBe("abc12345");
    expect(isUlid(requestIdFrom(new Headers()))).toBe(true);
    for (const bad of ["short", "has space in it", "x".repeat(65), '"}{"level":"error']) {
      expect(isUlid(requestIdFrom(new Headers({ "x-request-id": bad })))).toBe(true);
    }
  });

  it("an RPC call or Durable Object logs with the caller's request id when passed, else a fresh one", () => {
    expect(callLogger("identity", "abc12345").requestId).toBe("abc12345");
    expect(isUlid(callLogger("identity").requestId!)).toBe(true);
    expect(isUlid(callLogger("identity", "bad id").requestId!)).toBe(true);
  });

  it("a queue batch logs a new batch_id, the queue and the message count; a cron run its run_id", () => {
    const console_ = spyConsole();
    try {
      const batch = batchLogger("sites", { queue: "image-swap", messages: [{}, {}, {}] });
      batch.info("queue_batch_done");
      runLogger("content", "30 * * * *").info("cron_done");
      const [batchLine, runLine] = console_.read("info");
      expect(batchLine).toMatchObject({ service: "sites", queue: "image-swap", messages: 3 });
      expect(isUlid(String(batchLine!.batch_id))).toBe(true);
      expect(batch.requestId).toBeUndefined();
      expect(runLine).toMatchObject({ service: "content", cron: "30 * * * *", event: "cron_done" });
      expect(isUlid(String(runLine!.run_id))).toBe(true);
    } finally {
      console_.restore();
    }
  });

  it("an error is logged as its message and a short stack", () => {
    const fields = errorFields(new Error("boom"));
    expect(fields.error).toBe("boom");
    expect(fields.stack!.length).toBeLessThanOrEqual(5);
    expect(errorFields("plain")).toEqual({ error: "plain" });
  });
});

describe("handleError (through createServiceApp)", () => {
  const { problem } = errorsOf(defineErrors({ SLUG_TAKEN: 409, REFRESH_UNAVAILABLE: 503 }));
  const app = createServiceApp("test");
  app.get("/conflict", () => {
    throw problem("SLUG_TAKEN", { detail: "Taken.", reason: "unique index posts_slug" });
  });
  app.get("/unavailable", () => {
    throw problem("REFRESH_UNAVAILABLE", { detail: "Retry.", reason: "DO reset: secret-cause" });
  });
  app.get("/crash", () => {
    throw new Error("D1_ERROR: secret-cause");
  });
  app.get("/logs", (c) => {
    c.get("log").info("handler_line");
    return c.text("ok");
  });
  const get = (path: string) => app.request(path, { headers: { "x-request-id": "abc12345" } });

  it("a 4xx is one info line with the request id, status, code and reason; the answer is unchanged", async () => {
    const console_ = spyConsole();
    try {
      const res = await get("/conflict");
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        type: "about:blank",
        title: "Conflict",
        status: 409,
        code: "SLUG_TAKEN",
        detail: "Taken.",
      });
      expect(console_.read("info")).toEqual([
        {
          level: "info",
          service: "test",
          request_id: "abc12345",
          trace_id: res.headers.get("traceparent")?.split("-")[1],
          event: "request_failed",
          method: "GET",
          path: "/conflict",
          status: 409,
          code: "SLUG_TAKEN",
          reason: "unique index posts_slug",
        },
      ]);
      expect(console_.read("error")).toEqual([]);
    } finally {
      console_.restore();
    }
  });

  it("a 5xx ApiError is an error line with its internal reason, which never reaches the wire", async () => {
    const console_ = spyConsole();
    try {
      const res = await get("/unavailable");
      expect(res.status).toBe(503);
      expect(await res.text()).not.toContain("secret-cause");
      expect(console_.read("error")).toMatchObject([
        {
          request_id: "abc12345",
          status: 503,
          code: "REFRESH_UNAVAILABLE",
          reason: "DO reset: secret-cause",
        },
      ]);
      expect(console_.read("info")).toEqual([]);
    } finally {
      console_.restore();
    }
  });

  it("an unknown error is a redacted 500 and an error line with the cause and a short stack", async () => {
    const console_ = spyConsole();
    try {
      const res = await get("/crash");
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain("secret-cause");
      const [line] = console_.read("error");
      expect(line).toMatchObject({
        request_id: "abc12345",
        event: "unhandled_error",
        status: 500,
        code: "INTERNAL_ERROR",
        error: "D1_ERROR: secret-cause",
      });
      expect(Array.isArray(line!.stack)).toBe(true);
    } finally {
      console_.restore();
    }
  });

  it("handlers log through c.get('log') with the request's id", async () => {
    const console_ = spyConsole();
    try {
      const res = await get("/logs");
      const trace_id = res.headers.get("traceparent")?.split("-")[1];
      expect(trace_id).toMatch(/^[0-9a-f]{32}$/);
      // Then the request's own line: no failure was logged, so `request_done` with its route pattern.
      expect(console_.read("info")).toEqual([
        { level: "info", service: "test", request_id: "abc12345", trace_id, event: "handler_line" },
        {
          level: "info",
          service: "test",
          request_id: "abc12345",
          trace_id,
          event: "request_done",
          method: "GET",
          route: "/logs",
          status: 200,
          duration_ms: expect.any(Number),
        },
      ]);
    } finally {
      console_.restore();
    }
  });
});
