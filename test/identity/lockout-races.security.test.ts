/**
 * Issue 18 item 3: right passwords never lock the account. The lockout guard reserves a slot for every
 * proof it lets run (at most 5 at once), counts only confirmed failures, and makes a further attempt wait
 * for a slot instead of refusing it: concurrent right passwords all pass, concurrent wrong guesses still
 * evaluate at most 5, and an attacker who knows the password gets no more second-factor guesses than that.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/identity/core/crypto";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  problem,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

function start(email: string, password: string) {
  return call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() });
}

function login(email: string, password: string, totp_code?: string) {
  return call("POST", "/api/v1/auth/login", { body: { email, password, totp_code }, ip: freshIp() });
}

function verify(challenge: string, code: string) {
  return call("POST", "/api/v1/auth/login/mfa/verify", {
    body: { challenge, method: "totp", code },
    ip: freshIp(),
  });
}

function statuses(results: Response[]): number[] {
  return results.map((r) => r.status);
}

function count(list: number[], status: number): number {
  return list.filter((s) => s === status).length;
}

async function accountGuard(userId: string) {
  return e.ACCOUNT_GUARD.get(e.ACCOUNT_GUARD.idFromName(await sha256Hex(`guard|account|${userId}`)));
}

describe("lockout: right passwords are never counted", () => {
  it("20 concurrent login/start with the right password from 20 clients all answer 200", {
    timeout: 60_000,
  }, async () => {
    const u = await staffUser();
    const results = await Promise.all(Array.from({ length: 20 }, () => start(u.email, u.password)));
    expect(statuses(results)).toEqual(Array(20).fill(200));
    // Nothing counted, nothing left in flight: the account is not one step closer to a lock.
    expect(await (await accountGuard(u.session.user.id)).counts()).toMatchObject({
      failures: 0,
      inFlight: 0,
      lockedUntil: 0,
    });
    expect((await start(u.email, u.password)).status).toBe(200);
  });

  it("4 wrong guesses and 20 right passwords at once: the right ones all pass, nothing locks", {
    timeout: 60_000,
  }, async () => {
    const u = await staffUser();
    const attempts = [
      ...Array.from({ length: 20 }, () => () => start(u.email, u.password)),
      ...Array.from({ length: 4 }, () => () => start(u.email, "wrong-password-long")),
    ].sort(() => Math.random() - 0.5);
    const results = statuses(await Promise.all(attempts.map((a) => a())));
    expect(count(results, 200)).toBe(20);
    expect(count(results, 401)).toBe(4);
    expect(await (await accountGuard(u.session.user.id)).counts()).toMatchObject({
      failures: 4,
      inFlight: 0,
    });
  });

  it("20 wrong guesses and 10 right passwords at once: at most 5 guesses evaluated, 423 only after the lock", {
    timeout: 60_000,
  }, async () => {
    const u = await staffUser();
    const attempts = [
      ...Array.from({ length: 10 }, () => () => start(u.email, u.password)),
      ...Array.from({ length: 20 }, () => () => start(u.email, "wrong-password-long")),
    ].sort(() => Math.random() - 0.5);
    const results = statuses(await Promise.all(attempts.map((a) => a())));
    expect(count(results, 401)).toBeLessThanOrEqual(5);
    expect(count(results, 200) + count(results, 401) + count(results, 423)).toBe(30);
    if (count(results, 423) > 0) expect(count(results, 401)).toBe(5);
  });
});

describe("lockout: a refusal after the reservation gives the slot back", () => {
  it("12 concurrent right passwords of an unconfirmed signup answer 403 and leave nothing counted or held", {
    timeout: 60_000,
  }, async () => {
    const email = freshEmail("pending");
    const password = GOOD_PASSWORD;
    const signup = await call("POST", "/api/v1/auth/signup", { body: { email, password }, ip: freshIp() });
    expect(signup.status).toBe(202);
    const results = await Promise.all(Array.from({ length: 12 }, () => start(email, password)));
    const codes = await Promise.all(results.map(async (r) => (await problem(r)).code));
    expect(codes).toEqual(Array(12).fill("EMAIL_NOT_VERIFIED"));
    const guard = e.ACCOUNT_GUARD.get(e.ACCOUNT_GUARD.idFromName(await sha256Hex(`guard|address|${email}`)));
    expect(await guard.counts()).toMatchObject({ failures: 0, inFlight: 0, lockedUntil: 0 });
  });
});

describe("lockout: concurrent wrong guesses cannot outrun the counter", () => {
  it("50 concurrent wrong passwords: exactly 5 evaluated, the other 45 answer 423, then the account is locked", {
    timeout: 60_000,
  }, async () => {
    const { email, password, session } = await signupVerified();
    const results = statuses(
      await Promise.all(Array.from({ length: 50 }, () => start(email, "wrong-password-long"))),
    );
    expect(count(results, 401)).toBe(5);
    expect(count(results, 423)).toBe(45);
    const guard = await accountGuard(session.user.id);
    expect((await guard.check()).locked).toBe(true);
    expect(await guard.counts()).toMatchObject({ inFlight: 0 });
    expect((await problem(await start(email, password))).code).toBe("ACCOUNT_LOCKED");
  });

  it("50 concurrent one-step logins with the right password and a wrong TOTP code: at most 5 evaluated", {
    timeout: 60_000,
  }, async () => {
    const u = await staffUser();
    const results = await Promise.all(Array.from({ length: 50 }, () => login(u.email, u.password, "000000")));
    const codes = await Promise.all(results.map(async (r) => (await problem(r)).code));
    expect(count(statuses(results), 401)).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === "MFA_INVALID_CODE").length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === "ACCOUNT_LOCKED").length).toBeGreaterThanOrEqual(45);
    expect((await login(u.email, u.password, await totpCode(u.secret, 1))).status).toBe(423);
  });

  it("knowing the password buys no more second-factor guesses: wrong codes over 10 challenges lock at 5", {
    timeout: 60_000,
  }, async () => {
    const u = await staffUser();
    const challenges: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await start(u.email, u.password);
      expect(res.status).toBe(200);
      challenges.push((await json<{ challenge: string }>(res)).challenge);
    }
    const results = await Promise.all(challenges.map((c, i) => verify(c, String(100000 + i))));
    const answers = await Promise.all(results.map((r) => problem(r)));
    expect(answers.filter((a) => a.code === "MFA_INVALID_CODE").length).toBe(5);
    expect(answers.filter((a) => a.code === "TOO_MANY_ATTEMPTS").length).toBe(5);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    // While that lock lasts even the right code on a fresh challenge waits, and new starts are refused.
    const locked = await verify(challenges[9]!, await totpCode(u.secret, 1));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await start(u.email, u.password)).status).toBe(423);
  });
});

describe("lockout: the current password of a password change counts like a sign-in", () => {
  it("a stolen access token is no oracle: 20 concurrent wrong current passwords evaluate 5, then 423", {
    timeout: 60_000,
  }, async () => {
    const { session, password } = await signupVerified();
    const change = (current: string) =>
      call("POST", "/api/v1/auth/password/change", {
        token: session.access_token,
        body: { current_password: current, new_password: "a-brand-new-passphrase-77" },
        ip: freshIp(),
      });
    const results = statuses(
      await Promise.all(Array.from({ length: 20 }, () => change("wrong-current-pass"))),
    );
    expect(count(results, 401)).toBe(5);
    expect(count(results, 423)).toBe(15);
    // Locked: even the right password cannot tell the attacker it was right (no 428 step-up).
    expect((await problem(await change(password))).code).toBe("ACCOUNT_LOCKED");
  });
});
