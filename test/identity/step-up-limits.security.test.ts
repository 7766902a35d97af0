/**
 * Step-up codes are rate limited: sending counts on a per-account quota (5 per 10 minutes), checking on
 * the client IP's verify quota and a per-account one (10 per 10 minutes). Without them, a stolen access
 * token could flood the owner's mailbox and guess codes without end (15 rounds of "send + 5 guesses"
 * mailed 26 codes and never met a 429).
 */
import { describe, expect, it } from "vitest";
import { call, freshEmail, freshIp, outbox, problem, signupVerified } from "../support/identity-helpers";

function deleteTotp(token: string, code?: string, ip = freshIp()) {
  return call("DELETE", "/api/v1/auth/mfa/totp", {
    token,
    ip,
    headers: code === undefined ? {} : { "x-step-up-code": code },
  });
}

describe("step-up codes (sensitive_action)", () => {
  it("15 rounds of 'send a code + 5 wrong guesses' meet 429 RATE_LIMITED with Retry-After; at most 5 codes mailed", async () => {
    const { session, email } = await signupVerified();
    const t = session.access_token;
    const statuses: number[] = [];
    const limited: Response[] = [];
    for (let round = 0; round < 15; round++) {
      const calls = [() => deleteTotp(t)];
      for (let guess = 0; guess < 5; guess++) calls.push(() => deleteTotp(t, "000000"));
      for (const make of calls) {
        const res = await make();
        statuses.push(res.status);
        if (res.status === 429) limited.push(res);
        else await res.body?.cancel();
      }
    }
    expect(limited.length).toBeGreaterThan(0);
    for (const res of limited) {
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await problem(res)).code).toBe("RATE_LIMITED");
    }
    expect(statuses.filter((s) => s === 428).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    const codes = (await outbox(email)).filter((m) => m.purpose === "sensitive_action");
    expect(codes.length).toBeLessThanOrEqual(5);
  });

  it("a code check counts on the client IP's verify quota, shared with the other verify operations", async () => {
    const { session } = await signupVerified();
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      const res = await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email: freshEmail("ghost"), code: "123456" },
        ip,
      });
      expect(res.status).toBe(401);
    }
    expect(await problem(await deleteTotp(session.access_token, "123456", ip))).toMatchObject({
      status: 429,
      code: "RATE_LIMITED",
    });
  });
});
