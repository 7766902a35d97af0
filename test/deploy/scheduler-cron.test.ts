/**
 * The local scheduler's cron parser and its timing (scripts/scheduler.mjs): what the Workers' configs use
 * (`*`, `*\/n`, numbers, lists) plus ranges, next fire times in UTC, and the scheduler firing each cron of a
 * config once per period with one log line per fire.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { fireLine, nextFire, parseCron, readCrons, startScheduler } from "../../scripts/scheduler.mjs";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("parseCron", () => {
  it("reads *, */n, numbers, lists and ranges", () => {
    const c = parseCron("*/15 0,12 1-3 * 1-5/2");
    expect([...c.minute.values]).toEqual([0, 15, 30, 45]);
    expect([...c.hour.values]).toEqual([0, 12]);
    expect([...c.dom.values]).toEqual([1, 2, 3]);
    expect(c.month.any).toBe(true);
    expect(c.month.values.size).toBe(12);
    expect([...c.dow.values]).toEqual([1, 3, 5]);
  });

  it("treats 7 as Sunday", () => {
    expect(parseCron("0 0 * * 7").dow.values.has(0)).toBe(true);
  });

  it("refuses what it cannot read", () => {
    for (const bad of [
      "* * * *",
      "60 * * * *",
      "* 24 * * *",
      "*/0 * * * *",
      "a * * * *",
      "5-1 * * * *",
      "* * 0 * *",
    ]) {
      expect(() => parseCron(bad), bad).toThrow(/cron/);
    }
  });
});

describe("nextFire", () => {
  const from = at("2026-11-28T23:59:30Z");

  it("gives the first matching minute strictly after the time (UTC)", () => {
    expect(iso(nextFire("* * * * *", from))).toBe("2026-11-29T00:00:00.000Z");
    expect(iso(nextFire("* * * * *", at("2026-11-29T00:00:00Z")))).toBe("2026-11-29T00:01:00.000Z");
    expect(iso(nextFire("30 * * * *", from))).toBe("2026-11-29T00:30:00.000Z");
    expect(iso(nextFire("*/5 * * * *", at("2026-11-29T00:07:10Z")))).toBe("2026-11-29T00:10:00.000Z");
    expect(iso(nextFire("0 * * * *", at("2026-11-29T00:00:00Z")))).toBe("2026-11-29T01:00:00.000Z");
  });

  it("follows days of the month, months and days of the week", () => {
    // 30 November 2026 is a Monday.
    expect(iso(nextFire("0 12 * * 1", from))).toBe("2026-11-30T12:00:00.000Z");
    expect(iso(nextFire("0 0 1 1 *", from))).toBe("2027-01-01T00:00:00.000Z");
    expect(iso(nextFire("0 0 29 2 *", from))).toBe("2028-02-29T00:00:00.000Z");
    // Both day fields restricted: either one is enough (the 1st, or a Monday).
    expect(iso(nextFire("0 0 1 * 1", from))).toBe("2026-11-30T00:00:00.000Z");
  });

  it("reads every cron the Workers' configs declare", () => {
    const crons = readCrons();
    expect(crons.content).toContain("* * * * *");
    expect(Object.keys(crons).sort()).toEqual(["content", "identity", "sites"]);
    for (const list of Object.values(crons))
      for (const cron of list) expect(nextFire(cron, from)).toBeGreaterThan(from);
  });
});

describe("startScheduler", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires each cron at its times, with the scheduled time, one log line per fire", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(at("2026-11-29T00:58:20Z"));
    const fired: string[] = [];
    const lines: string[] = [];
    const scheduler = startScheduler({
      crons: { content: ["* * * * *"], sites: ["*/5 * * * *", "0 * * * *"] },
      fire: async (worker, cron, time) => {
        fired.push(`${worker} ${cron} ${iso(time)}`);
        return { ok: true, status: 200, detail: "ok" };
      },
      log: (line) => lines.push(line),
    });
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    scheduler.stop();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    // Fires due at the same minute come in any order.
    expect(fired.sort((a, b) => a.slice(-24).localeCompare(b.slice(-24)) || a.localeCompare(b))).toEqual([
      "content * * * * * 2026-11-29T00:59:00.000Z",
      "content * * * * * 2026-11-29T01:00:00.000Z",
      "sites */5 * * * * 2026-11-29T01:00:00.000Z",
      "sites 0 * * * * 2026-11-29T01:00:00.000Z",
      "content * * * * * 2026-11-29T01:01:00.000Z",
    ]);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\[cron\] content "\* \* \* \* \*" at 00:59Z: ok \(200\) in \d+ ms$/);
  });

  it("logs a failed fire with its reason and keeps the schedule", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(at("2026-11-29T00:58:59Z"));
    const lines: string[] = [];
    const scheduler = startScheduler({
      crons: { identity: ["* * * * *"] },
      fire: async () => {
        throw Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } });
      },
      log: (line) => lines.push(line),
    });
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    scheduler.stop();
    expect(lines).toEqual([
      expect.stringMatching(/^\[cron\] identity "\* \* \* \* \*" at 00:59Z: failed: ECONNREFUSED in \d+ ms$/),
      expect.stringMatching(/at 01:00Z: failed: ECONNREFUSED/),
    ]);
  });

  it("says a handler's failure and its status", () => {
    const line = fireLine(
      "sites",
      "0 * * * *",
      at("2026-11-29T01:00:00Z"),
      { ok: false, status: 500, detail: "boom" },
      12,
    );
    expect(line).toBe('[cron] sites "0 * * * *" at 01:00Z: failed: boom (500) in 12 ms');
  });
});
