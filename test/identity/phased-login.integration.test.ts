import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

async function start(email: string, password: string) {
  const res = await call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() });
  expect(res.status).toBe(200);
  return (await res.json()) as { challenge: string; methods: string[]; expires_at: string };
}

function verify(body: Record<string, unknown>) {
  return call("POST", "/api/v1/auth/login/mfa/verify", { body, ip: freshIp() });
}

function send(challenge: string, method: string) {
  return call("POST", "/api/v1/auth/login/mfa/send", { body: { challenge, method }, ip: freshIp() });
}

describe("POST /auth/login/start", () => {
  it("opens a challenge listing the account's methods", async () => {
    const u = await staffUser();
    const res = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    const body = await json<{ challenge: string; methods: string[] }>(res);
    expect(Object.keys(body).sort()).toEqual(["challenge", "expires_at", "methods"]);
    expect(body.methods).toEqual(["totp", "email", "recovery_code"]);
    expect(body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("has `methods` only in the 200 (refusals carry no methods)", async () => {
    const u = await staffUser();
    const res = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: "wrong-password-x" },
      ip: freshIp(),
    });
    expect(res.status).toBe(401);
    expect(await json(res)).not.toHaveProperty("methods");
  });

  it("answers 428 MFA_NOT_ENROLLED only after the password matched", async () => {
    const { email, password } = await signupVerified();
    const p = await problem(
      await call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() }),
    );
    expect(p).toMatchObject({ status: 428, code: "MFA_NOT_ENROLLED" });
  });
});

describe("POST /auth/login/mfa/send", () => {
  it("e-mails a code (202 with the expiry) and the code completes the login", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const res = await send(challenge, "email");
    expect(res.status).toBe(202);
    const body = await json<{ expires_at: string }>(res);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now());
    const code = await latestCode(u.email, "login_mfa");
    const ok = await verify({ challenge, method: "email", code });
    expect(ok.status).toBe(200);
    expect((await json(ok)).trusted_device).toBe(false);
  });

  it("202 returns only the expiry: the body keys are exactly expires_at", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const res = await send(challenge, "email");
    expect(res.status).toBe(202);
    expect(Object.keys(await json(res))).toEqual(["expires_at"]);
  });

  it("refuses totp (no delivery step) and methods the account lacks with 400 METHOD_NOT_AVAILABLE", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    expect(await problem(await send(challenge, "totp"))).toMatchObject({
      status: 400,
      code: "METHOD_NOT_AVAILABLE",
    });
    expect(await problem(await send(challenge, "sms"))).toMatchObject({
      status: 400,
      code: "METHOD_NOT_AVAILABLE",
    });
    expect(await problem(await send(challenge, "passkey"))).toMatchObject({
      status: 400,
      code: "METHOD_NOT_AVAILABLE",
    });
    expect((await problem(await send(challenge, "carrier-pigeon"))).status).toBe(400);
  });

  it("answers 501 PASSKEY_DISABLED for passkey when passkeys are off", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const p = await problem(
      await callWith({ PASSKEYS_ENABLED: "false" }, "POST", "/api/v1/auth/login/mfa/send", {
        body: { challenge, method: "passkey" },
        ip: freshIp(),
      }),
    );
    expect(p).toMatchObject({ status: 501, code: "PASSKEY_DISABLED" });
  });

  it("answers 401 CHALLENGE_INVALID for an unknown challenge", async () => {
    expect(await problem(await send("x".repeat(43), "email"))).toMatchObject({
      status: 401,
      code: "CHALLENGE_INVALID",
    });
  });

  it("answers 502 when the e-mail provider fails", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const res = await callWith(
      { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" },
      "POST",
      "/api/v1/auth/login/mfa/send",
      { body: { challenge, method: "email" }, ip: freshIp() },
    );
    expect(res.status).toBe(502);
  });
});

describe("POST /auth/login/mfa/verify", () => {
  it("issues a session with a TOTP code and trust_device gives a 90-day trusted session", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const res = await verify({
      challenge,
      method: "totp",
      code: await totpCode(u.secret, 1),
      trust_device: true,
    });
    expect(res.status).toBe(200);
    const body = await json<SessionBody & { trusted_device: boolean }>(res);
    expect(body.trusted_device).toBe(true);
    const cookies = res.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith("svc_session="))).toBe(true);
    const refresh = cookies.find((c) => c.startsWith("svc_refresh="))!;
    const maxAge = Number(/Max-Age=(\d+)/.exec(refresh)![1]);
    expect(maxAge).toBeGreaterThan(89 * 24 * 3600);
    expect(maxAge).toBeLessThanOrEqual(90 * 24 * 3600);
    const row = await e.DB.prepare("SELECT trusted_device, expires_at FROM sessions WHERE id = ?")
      .bind(body.session_id)
      .first<{ trusted_device: number; expires_at: string }>();
    expect(row!.trusted_device).toBe(1);
  });

  it("is single use: the consumed challenge answers 401 CHALLENGE_INVALID", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    expect((await verify({ challenge, method: "totp", code: await totpCode(u.secret, 1) })).status).toBe(200);
    expect(
      await problem(await verify({ challenge, method: "recovery_code", code: u.recoveryCodes[0] })),
    ).toMatchObject({
      status: 401,
      code: "CHALLENGE_INVALID",
    });
  });

  it("counts wrong codes with details.attempts_remaining; the 5th wrong attempt kills it (429)", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    for (let remaining = 4; remaining >= 1; remaining--) {
      const p = await problem(await verify({ challenge, method: "totp", code: "000000" }));
      expect(p).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
      expect(p.body.details).toEqual({ attempts_remaining: remaining });
    }
    expect(await problem(await verify({ challenge, method: "totp", code: "000000" }))).toMatchObject({
      status: 429,
      code: "TOO_MANY_ATTEMPTS",
    });
    // Dead: even the right code no longer works.
    expect((await verify({ challenge, method: "totp", code: await totpCode(u.secret, 1) })).status).toBe(429);
  });

  it("50 concurrent wrong codes on one challenge count at most 5", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => verify({ challenge, method: "totp", code: String(100000 + i) })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(46);
    const stub = e.LOGIN_CHALLENGES.get(e.LOGIN_CHALLENGES.idFromName(`challenge:${challenge}`));
    expect(await stub.failures()).toBe(5);
  });

  it("concurrent right codes issue exactly one session", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    await send(challenge, "email");
    const code = await latestCode(u.email, "login_mfa");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => verify({ challenge, method: "email", code })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
    const userId = u.session.user.id;
    const sessions = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND auth_method = 'password_email'",
    )
      .bind(userId)
      .first<{ n: number }>();
    expect(sessions!.n).toBe(1);
  });

  it("accepts a recovery code once as second factor; never as a trusted device", async () => {
    const u = await staffUser();
    const a = await start(u.email, u.password);
    const res = await verify({
      challenge: a.challenge,
      method: "recovery_code",
      code: u.recoveryCodes[0],
      trust_device: true,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).trusted_device).toBe(false);
    const b = await start(u.email, u.password);
    const again = await problem(
      await verify({ challenge: b.challenge, method: "recovery_code", code: u.recoveryCodes[0] }),
    );
    expect(again).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
  });

  it("an e-mail code of one challenge does not work on another", async () => {
    const u = await staffUser();
    const a = await start(u.email, u.password);
    const b = await start(u.email, u.password);
    await send(a.challenge, "email");
    const code = await latestCode(u.email, "login_mfa");
    await send(b.challenge, "email");
    const codeB = (await outbox(u.email)).find((m) => m.purpose === "login_mfa")!.code!;
    if (code !== codeB) {
      expect((await verify({ challenge: b.challenge, method: "email", code })).status).toBe(401);
    }
    expect((await verify({ challenge: b.challenge, method: "email", code: codeB })).status).toBe(200);
  });

  it("refuses bodies without code or credential with 400, and a method the challenge lacks with METHOD_NOT_AVAILABLE", async () => {
    const u = await staffUser();
    const { challenge } = await start(u.email, u.password);
    expect((await problem(await verify({ challenge, method: "totp" }))).status).toBe(400);
    expect((await problem(await verify({ challenge, method: "passkey" }))).status).toBe(400);
    expect(await problem(await verify({ challenge, method: "passkey", credential: {} }))).toMatchObject({
      status: 400,
      code: "METHOD_NOT_AVAILABLE",
    });
  });
});
