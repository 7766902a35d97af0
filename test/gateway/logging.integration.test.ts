/** The gateway logs with the same logger and the request id it forwards to the services. */
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("gateway logs", () => {
  it("its own 401 is one info line with the client's X-Request-Id, which the answer echoes", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const res = await exports.default.fetch("http://127.0.0.1:8787/api/v1/sites", {
      headers: { "x-request-id": "abc12345" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toBe("abc12345");
    const lines = info.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        level: "info",
        service: "gateway",
        request_id: "abc12345",
        // The trace the gateway started for the request (src/lib/trace.ts), as its answer's traceparent names it.
        trace_id: res.headers.get("traceparent")?.split("-")[1],
        event: "request_failed",
        method: "GET",
        path: "/api/v1/sites",
        status: 401,
        code: "UNAUTHENTICATED",
        reason: "A valid Bearer access token is required.",
      },
    ]);
  });
});
