import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountGuard, Reservation } from "../../src/identity/login/account-guard";
import { ManualClock } from "../support/manual-clock";

const e = env as unknown as IdentityEnv;

function guard() {
  return e.ACCOUNT_GUARD.get(e.ACCOUNT_GUARD.idFromName(crypto.randomUUID()));
}

type Stub = ReturnType<typeof guard>;

async function granted(stub: Stub): Promise<string> {
  const r = await stub.reserve();
  if (r.kind !== "granted") throw new Error(`expected a slot, got ${r.kind}`);
  return r.lease;
}

describe("AccountGuard", () => {
  it("at most 5 reservations in flight; confirmed failures arm the lock and the waiters are locked", async () => {
    const stub = guard();
    const leases = await Promise.all(Array.from({ length: 5 }, () => granted(stub)));
    const waiting = Array.from({ length: 7 }, () => stub.reserve());
    await new Promise((r) => setTimeout(r, 200));
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 5 });
    const outcomes = await Promise.all(leases.map((lease) => stub.fail(lease)));
    expect(outcomes.map((o) => o.lockedFor)).toEqual([0, 0, 0, 0, 60]);
    const late = await Promise.all(waiting);
    expect(late.every((r) => r.kind === "locked" && r.retryAfter > 0 && r.retryAfter <= 60)).toBe(true);
  });

  it("released reservations count nothing and hand their slots to the waiters", async () => {
    const stub = guard();
    const leases = await Promise.all(Array.from({ length: 5 }, () => granted(stub)));
    // Which waiter is served first is the guard's arrival order, not this array's (RPCs may arrive in any
    // order): each waiter gives its slot back as soon as it has one, and every one of the 8 is served.
    let most = 0;
    const waiting = Array.from({ length: 8 }, async () => {
      const lease = await granted(stub);
      most = Math.max(most, (await stub.counts()).inFlight);
      await stub.release(lease);
    });
    await Promise.all(leases.map((lease) => stub.release(lease)));
    await Promise.all(waiting);
    expect(most).toBeLessThanOrEqual(5);
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 0, lockedUntil: 0 });
    expect((await stub.check()).locked).toBe(false);
  });

  it("4 failures and a free slot: the 5th proof runs; clear() (a completed sign-in) forgets them", async () => {
    const stub = guard();
    for (let i = 0; i < 4; i++) await stub.fail(await granted(stub));
    expect(await stub.counts()).toMatchObject({ failures: 4, inFlight: 0 });
    const last = await granted(stub);
    await stub.clear();
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 1 });
    await stub.release(last);
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 0 });
  });

  it("reservations never settled: waiters give up after a 10 s stall (503, not a lock), the leases expire at 20 s", async () => {
    const stub = guard();
    // The guard's clock is moved by hand: the 10 s and 20 s bounds are crossed without waiting for them.
    const clock = new ManualClock();
    await runInDurableObject(stub, (instance: AccountGuard) => {
      instance.clock = clock;
    });
    // Timers fire inside the object (the waiter's promise belongs to it).
    const advance = (ms: number) => runInDurableObject(stub, () => clock.advance(ms));
    for (let i = 0; i < 5; i++) await granted(stub);
    const t = clock.now();
    let answer: Reservation | undefined;
    const waiting = stub.reserve().then((r) => {
      answer = r;
      return r;
    });
    // The waiter sleeps until the stall bound; a wake-up is armed for the first lease's expiry.
    await clock.untilPending(2);
    await advance(9_999);
    expect(answer).toBeUndefined();
    await advance(1);
    const stalled = await waiting;
    expect(stalled.kind).toBe("busy");
    expect(clock.now() - t).toBeGreaterThanOrEqual(9_500);
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 5, lockedUntil: 0 });
    await advance(19_999 - (clock.now() - t));
    expect(await stub.counts()).toMatchObject({ inFlight: 5 });
    await advance(20_500 - (clock.now() - t));
    expect(await stub.counts()).toMatchObject({ failures: 0, inFlight: 0, lockedUntil: 0 });
    const lease = await granted(stub);
    await stub.release(lease);
  });
});

describe("RateLimiter", () => {
  it("allows exactly the limit under concurrency (at, below, above)", async () => {
    const stub = e.RATE_LIMITER.get(e.RATE_LIMITER.idFromName(crypto.randomUUID()));
    const results = await Promise.all(Array.from({ length: 30 }, () => stub.hit(10, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(20);
    expect(refused.every((r) => r.retryAfter >= 1 && r.retryAfter <= 60)).toBe(true);
  });
});

describe("hourly cleanup", () => {
  it("removes stale codes, old outbox rows, dead sessions and abandoned pending signups", async () => {
    const { cleanupExpired } = await import("../../src/identity/core/maintenance");
    const old = "2020-01-01T00:00:00.000Z";
    const id = crypto.randomUUID();
    await e.DB.batch([
      e.DB.prepare(
        "INSERT INTO otp_codes (id, purpose, target, code_hash, max_attempts, expires_at, created_at) VALUES (?, 'magic_link', 't', 'h', 5, ?, ?)",
      ).bind(`otp-${id}`, old, old),
      e.DB.prepare(
        "INSERT INTO users (id, status, created_at, updated_at) VALUES (?, 'pending_verification', ?, ?)",
      ).bind(`user-${id}`, old, old),
    ]);
    await cleanupExpired(e.DB);
    expect(await e.DB.prepare("SELECT id FROM otp_codes WHERE id = ?").bind(`otp-${id}`).first()).toBeNull();
    expect(await e.DB.prepare("SELECT id FROM users WHERE id = ?").bind(`user-${id}`).first()).toBeNull();
  });
});
