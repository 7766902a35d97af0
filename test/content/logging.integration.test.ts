/** Logs of the content worker: failures carry the request id; a cron run carries its run id. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { BASE, content } from "../support/content-helpers";

function consoleLines(method: "info" | "error") {
  const spy = vi.spyOn(console, method).mockImplementation(() => {});
  return () => spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("content logs", () => {
  it("a 401 without a key logs one info line with the X-Request-Id and the code", async () => {
    const info = consoleLines("info");
    const res = await (content as unknown as Fetcher).fetch(`${BASE}/v1/posts`, {
      headers: { "x-request-id": "abc12345" },
    });
    expect(res.status).toBe(401);
    expect(info()).toMatchObject([
      {
        level: "info",
        service: "content",
        request_id: "abc12345",
        event: "request_failed",
        status: 401,
        code: "UNAUTHENTICATED",
      },
    ]);
  });

  it("a cron run logs its outcome with a run id and its schedule", async () => {
    const info = consoleLines("info");
    await content.scheduled({ cron: "30 * * * *" });
    const [line] = info();
    expect(line).toMatchObject({ service: "content", event: "cron_done", cron: "30 * * * *" });
    expect(typeof line!.run_id).toBe("string");
    expect(typeof line!.redelivered).toBe("number");
  });
});
