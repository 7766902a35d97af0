import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  problem,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

function login(email: string, password: string, totp_code?: string, ip = freshIp()) {
  return call("POST", "/api/v1/auth/login", { body: { email, password, totp_code }, ip });
}

describe("login: enumeration rules", () => {
  it("unknown e-mail and wrong password give the identical 401 INVALID_CREDENTIALS (status and body)", async () => {
    const { email } = await staffUser();
    const wrong = await login(email, "wrong-password-but-long", "123456");
    const unknown = await login(freshEmail(), "wrong-password-but-long", "123456");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const body = await wrong.text();
    expect(body).toBe(await unknown.text());
    expect(JSON.parse(body).code).toBe("INVALID_CREDENTIALS");

    const startWrong = await call("POST", "/api/v1/auth/login/start", {
      body: { email, password: "x".repeat(14) },
      ip: freshIp(),
    });
    const startUnknown = await call("POST", "/api/v1/auth/login/start", {
      body: { email: freshEmail(), password: "x".repeat(14) },
      ip: freshIp(),
    });
    expect(startWrong.status).toBe(401);
    expect(await startWrong.text()).toBe(await startUnknown.text());
  });

  it("says EMAIL_NOT_VERIFIED (403) only after the password matched", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip: freshIp() });
    expect((await problem(await login(email, "wrong-password-but-long"))).code).toBe("INVALID_CREDENTIALS");
    expect(await problem(await login(email, GOOD_PASSWORD))).toMatchObject({
      status: 403,
      code: "EMAIL_NOT_VERIFIED",
    });
  });
});

describe("login: password plus TOTP", () => {
  it("refuses a missing or wrong TOTP code with 401 MFA_INVALID_CODE", async () => {
    const u = await staffUser();
    expect(await problem(await login(u.email, u.password))).toMatchObject({
      status: 401,
      code: "MFA_INVALID_CODE",
    });
    expect(await problem(await login(u.email, u.password, "000000"))).toMatchObject({
      status: 401,
      code: "MFA_INVALID_CODE",
    });
  });

  it("accepts a TOTP code once: replaying it (or an older one) fails", async () => {
    const u = await staffUser();
    const code = await totpCode(u.secret, 1);
    expect((await login(u.email, u.password, code)).status).toBe(200);
    expect(await problem(await login(u.email, u.password, code))).toMatchObject({
      status: 401,
      code: "MFA_INVALID_CODE",
    });
    // The enrollment burned the current step: its code is older than the last accepted one.
    expect((await login(u.email, u.password, await totpCode(u.secret, 0))).status).toBe(401);
  });

  it("concurrent logins with the same TOTP code: exactly one succeeds", async () => {
    const u = await staffUser();
    const code = await totpCode(u.secret, 1);
    const results = await Promise.all(Array.from({ length: 4 }, () => login(u.email, u.password, code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("answers 428 MFA_NOT_ENROLLED for a staff account without TOTP (after the password matched)", async () => {
    const { email, password } = await signupVerified();
    expect(await problem(await login(email, password, "123456"))).toMatchObject({
      status: 428,
      code: "MFA_NOT_ENROLLED",
    });
  });
});

describe("login: lockout (423)", () => {
  it("locks the address after 5 failures, for known and unknown addresses alike", async () => {
    const { email } = await signupVerified();
    const ghost = freshEmail("ghost");
    for (const address of [email, ghost]) {
      for (let i = 0; i < 5; i++) expect((await login(address, "wrong-password-long")).status).toBe(401);
      const locked = await login(address, "wrong-password-long");
      expect(locked.status).toBe(423);
      expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(locked.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    }
  });

  it("a locked account still refuses the right password, but magic link (plus the second factor) works and clears the lock", async () => {
    const u = await staffUser();
    for (let i = 0; i < 5; i++) await login(u.email, "wrong-password-long");
    expect((await login(u.email, u.password, await totpCode(u.secret, 1))).status).toBe(423);

    const ip = freshIp();
    expect(
      (await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip })).status,
    ).toBe(202);
    const code = await latestCode(u.email, "magic_link");
    const opened = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: u.email, code },
      ip,
    });
    expect(opened.status).toBe(200);
    const { challenge } = await json<{ challenge: string }>(opened);
    const done = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge, method: "totp", code: await totpCode(u.secret, 1) },
      ip,
    });
    expect(done.status).toBe(200);
    const again = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip: freshIp(),
    });
    expect(again.status).toBe(200);
  });

  it("concurrent wrong passwords cannot outrun the counter: at most 5 are checked", async () => {
    const { email } = await signupVerified();
    const results = await Promise.all(Array.from({ length: 12 }, () => login(email, "wrong-password-long")));
    expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.status === 423).length).toBeGreaterThanOrEqual(7);
  });

  it("bad input is a 400, never a 500", async () => {
    const cases = [
      { rawBody: "{not json" },
      { body: { email: "a@example.com" } },
      { body: { email: 5, password: "x" } },
      { body: { email: "nope", password: "a-long-password-here" } },
    ];
    for (const c of cases) {
      const res = await call("POST", "/api/v1/auth/login", { ...c, ip: freshIp() });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    const body = await json(
      await call("POST", "/api/v1/auth/login", { body: { email: "nope", password: "x" }, ip: freshIp() }),
    );
    expect(body.code).toBe("INVALID_EMAIL");
  });
});
