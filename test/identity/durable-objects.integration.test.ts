import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/identity/crypto";

const e = env as unknown as IdentityEnv;

describe("AccountGuard", () => {
  it("counts concurrent attempts exactly: 5 run, the rest are locked", async () => {
    const stub = e.ACCOUNT_GUARD.get(
      e.ACCOUNT_GUARD.idFromName(await sha256Hex(`guard|${crypto.randomUUID()}`)),
    );
    const results = await Promise.all(Array.from({ length: 12 }, () => stub.attempt()));
    expect(results.filter((r) => !r.locked)).toHaveLength(5);
    expect(results.filter((r) => r.locked).every((r) => r.retryAfter > 0 && r.retryAfter <= 60)).toBe(true);
  });

  it("a success clears the state", async () => {
    const stub = e.ACCOUNT_GUARD.get(e.ACCOUNT_GUARD.idFromName(crypto.randomUUID()));
    for (let i = 0; i < 5; i++) await stub.attempt();
    expect((await stub.check()).locked).toBe(true);
    await stub.succeed();
    expect((await stub.check()).locked).toBe(false);
    expect((await stub.attempt()).locked).toBe(false);
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
    const { cleanupExpired } = await import("../../src/identity/store/maintenance");
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
