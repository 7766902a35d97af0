/** Logs of the sites worker: the request id the gateway sent on every failure line, batches by batch id. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../src/lib/ids";
import { fetchSigned } from "../support/edge-signing";
import { deliverQueue, orgMember, sites, sitesEnv, uniqueSlug } from "../support/sites-helpers";

/**
 * The lines logged at `method` that `mine` keeps: the files of the project share one runtime, so another
 * file's queue batch or request may log while this test listens.
 */
function consoleLines(method: "info" | "warn" | "error", mine: (line: Record<string, unknown>) => boolean) {
  const spy = vi.spyOn(console, method).mockImplementation(() => {});
  return () =>
    spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>).filter(mine);
}

/** A request id of the test's own, and a filter for the lines that carry it. */
function ownRequestId() {
  const id = `req-${newId()}`;
  return { id, mine: (line: Record<string, unknown>) => line.request_id === id };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("request logs", () => {
  it("a 4xx logs one info line with the X-Request-Id and the code", async () => {
    const request = ownRequestId();
    const info = consoleLines("info", request.mine);
    const error = consoleLines("error", request.mine);
    const res = await sites.fetch("http://sites.internal/api/v1/sites/by-host", {
      headers: { "x-request-id": request.id },
    });
    expect(res.status).toBe(400);
    expect(info()).toEqual([
      {
        level: "info",
        service: "sites",
        request_id: request.id,
        // The request's trace (src/lib/trace.ts), as the answer's traceparent names it.
        trace_id: res.headers.get("traceparent")?.split("-")[1],
        event: "request_failed",
        method: "GET",
        path: "/api/v1/sites/by-host",
        status: 400,
        code: "BAD_REQUEST",
        reason: "host: required",
      },
    ]);
    expect(error()).toEqual([]);
  });

  it("a 500 logs at error with the cause, which the answer never shows", async () => {
    const request = ownRequestId();
    const error = consoleLines("error", request.mine);
    const orgId = newId();
    const name = `boom-${newId()}`;
    const trigger = `t_${newId()}`;
    await sitesEnv.DB.prepare(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON sites WHEN NEW.name = '${name}' BEGIN SELECT RAISE(ABORT, 'secret-cause'); END`,
    ).run();
    try {
      const res = await fetchSigned(sites, "http://sites.internal/api/v1/sites", {
        method: "POST",
        headers: { ...orgMember(orgId), "content-type": "application/json", "x-request-id": request.id },
        body: JSON.stringify({ org_id: orgId, name, slug: uniqueSlug() }),
      });
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain("secret-cause");
    } finally {
      await sitesEnv.DB.prepare(`DROP TRIGGER IF EXISTS ${trigger}`).run();
    }
    const lines = error();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "error",
      service: "sites",
      request_id: request.id,
      event: "unhandled_error",
      code: "INTERNAL_ERROR",
    });
    expect(String(lines[0]!.error)).toContain("secret-cause");
  });
});

describe("queue logs", () => {
  it("a batch logs with its own batch id, the queue and the message count", async () => {
    const mine = (line: Record<string, unknown>) => line.queue === "no-such-queue";
    const warn = consoleLines("warn", mine);
    const info = consoleLines("info", mine);
    await deliverQueue("no-such-queue", [{}, {}]);
    const [unknown] = warn();
    const [done] = info();
    expect(unknown).toMatchObject({ level: "warn", service: "sites", queue: "no-such-queue", messages: 2 });
    expect(unknown!.event).toBe("unknown_queue");
    expect(done).toMatchObject({ event: "queue_batch_done", batch_id: unknown!.batch_id });
    expect(unknown).not.toHaveProperty("request_id");
  });
});
