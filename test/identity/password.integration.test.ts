import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
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
const NEW_PASSWORD = "a-brand-new-passphrase-77";

function change(token: string, body: Record<string, unknown>, code?: string) {
  return call("POST", "/api/v1/auth/password/change", {
    token,
    body,
    headers: code ? { "x-step-up-code": code } : {},
  });
}

describe("POST /auth/password/reset/request and /confirm", () => {
  it("answers the identical 202 for an address with and without an account", async () => {
    const { email } = await signupVerified();
    const a = await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip: freshIp() });
    const b = await call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: freshEmail() },
      ip: freshIp(),
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(await a.text()).toBe(await b.text());
    expect((await outbox(email))[0]!.purpose).toBe("password_reset");
  });

  it("sets the new password, revokes every session, and the old password stops working", async () => {
    const u = await staffUser();
    await call("POST", "/api/v1/auth/password/reset/request", { body: { email: u.email }, ip: freshIp() });
    const code = await latestCode(u.email, "password_reset");
    const res = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: u.email, code, new_password: NEW_PASSWORD },
      ip: freshIp(),
    });
    expect(res.status).toBe(204);
    expect((await call("GET", "/api/v1/auth/sessions", { token: u.session.access_token })).status).toBe(401);
    const old = await call("POST", "/api/v1/auth/login", {
      body: { email: u.email, password: u.password, totp_code: await totpCode(u.secret, 1) },
      ip: freshIp(),
    });
    expect(old.status).toBe(401);
    const fresh = await call("POST", "/api/v1/auth/login", {
      body: { email: u.email, password: NEW_PASSWORD, totp_code: await totpCode(u.secret, 1) },
      ip: freshIp(),
    });
    expect(fresh.status).toBe(200);
  });

  it("checks the policy before the code (a weak password burns no code), then refuses a wrong code", async () => {
    const { email } = await signupVerified();
    await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip: freshIp() });
    const code = await latestCode(email, "password_reset");
    const weak = await problem(
      await call("POST", "/api/v1/auth/password/reset/confirm", {
        body: { email, code, new_password: "short" },
        ip: freshIp(),
      }),
    );
    expect(weak).toMatchObject({ status: 400, code: "PASSWORD_TOO_WEAK" });
    const breached = await problem(
      await call("POST", "/api/v1/auth/password/reset/confirm", {
        body: { email, code, new_password: "password123456" },
        ip: freshIp(),
      }),
    );
    expect(breached).toMatchObject({ status: 400, code: "PASSWORD_BREACHED" });
    const wrong = await problem(
      await call("POST", "/api/v1/auth/password/reset/confirm", {
        body: { email, code: code === "000000" ? "111111" : "000000", new_password: NEW_PASSWORD },
        ip: freshIp(),
      }),
    );
    expect(wrong).toMatchObject({ status: 401, code: "CODE_INVALID" });
    const ok = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email, code, new_password: NEW_PASSWORD },
      ip: freshIp(),
    });
    expect(ok.status).toBe(204);
  });
});

describe("POST /auth/password/change", () => {
  it("check order: new-password policy, then current password, then step-up", async () => {
    const { session, password } = await signupVerified();
    const t = session.access_token;
    // Weak new password with a wrong current one: the policy answers first.
    expect(
      await problem(await change(t, { current_password: "wrong-current-pass", new_password: "short" })),
    ).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_WEAK",
    });
    expect(
      await problem(
        await change(t, { current_password: "wrong-current-pass", new_password: "password123456" }),
      ),
    ).toMatchObject({ status: 400, code: "PASSWORD_BREACHED" });
    // Good new password, wrong current one: 401 before any code is sent.
    const email = session.user.email;
    const before = (await outbox(email)).length;
    expect(
      await problem(await change(t, { current_password: "wrong-current-pass", new_password: NEW_PASSWORD })),
    ).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
    expect((await outbox(email)).length).toBe(before);
    // Right current password, no code: 428 and a code goes out.
    const p = await problem(await change(t, { current_password: password, new_password: NEW_PASSWORD }));
    expect(p).toMatchObject({ status: 428, code: "STEP_UP_REQUIRED" });
    expect(p.body.details?.channel).toBe("email");
  });

  it("with the step-up code: 204, other sessions revoked, the caller's survives", async () => {
    const { session, password, email } = await signupVerified();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    const other = await json<SessionBody>(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email, code: await latestCode(email, "magic_link") },
        ip: freshIp(),
      }),
    );
    await change(session.access_token, { current_password: password, new_password: NEW_PASSWORD });
    const wrong = await problem(
      await change(
        session.access_token,
        { current_password: password, new_password: NEW_PASSWORD },
        "000000",
      ),
    );
    expect(wrong).toMatchObject({ status: 401, code: "CODE_INVALID" });
    await change(session.access_token, { current_password: password, new_password: NEW_PASSWORD });
    const code = await latestCode(email, "sensitive_action");
    const res = await change(
      session.access_token,
      { current_password: password, new_password: NEW_PASSWORD },
      code,
    );
    expect(res.status).toBe(204);
    expect((await call("GET", "/api/v1/auth/sessions", { token: session.access_token })).status).toBe(200);
    expect((await call("GET", "/api/v1/auth/sessions", { token: other.access_token })).status).toBe(401);
    const row = await e.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(session.user.id)
      .first<{ password_hash: string }>();
    expect(row!.password_hash).toMatch(/^\$scrypt\$/);
  });

  it("answers 409 PASSWORD_NOT_SET for an account without a password", async () => {
    const { session } = await signupVerified();
    await e.DB.prepare("UPDATE users SET password_hash = NULL WHERE id = ?").bind(session.user.id).run();
    expect(
      await problem(
        await change(session.access_token, {
          current_password: "whatever-it-is",
          new_password: NEW_PASSWORD,
        }),
      ),
    ).toMatchObject({ status: 409, code: "PASSWORD_NOT_SET" });
  });

  it("503 STEP_UP_UNAVAILABLE when the code cannot be sent; the password is unchanged", async () => {
    const { session, password } = await signupVerified();
    const before = await e.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(session.user.id)
      .first();
    const p = await problem(
      await callWith(
        { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" },
        "POST",
        "/api/v1/auth/password/change",
        {
          token: session.access_token,
          body: { current_password: password, new_password: NEW_PASSWORD },
        },
      ),
    );
    expect(p).toMatchObject({ status: 503, code: "STEP_UP_UNAVAILABLE" });
    expect(
      await e.DB.prepare("SELECT password_hash FROM users WHERE id = ?").bind(session.user.id).first(),
    ).toEqual(before);
  });

  it("503 PASSWORD_CHECK_UNAVAILABLE only with fail-closed on", async () => {
    const { session, password } = await signupVerified();
    const p = await problem(
      await callWith(
        { BREACH_CHECK_URL: "https://breach-down.test/range/", BREACH_CHECK_FAIL_CLOSED: "true" },
        "POST",
        "/api/v1/auth/password/change",
        { token: session.access_token, body: { current_password: password, new_password: NEW_PASSWORD } },
      ),
    );
    expect(p).toMatchObject({ status: 503, code: "PASSWORD_CHECK_UNAVAILABLE" });
    const open = await callWith(
      { BREACH_CHECK_URL: "https://breach-down.test/range/" },
      "POST",
      "/api/v1/auth/password/change",
      {
        token: session.access_token,
        body: { current_password: password, new_password: NEW_PASSWORD },
      },
    );
    expect(open.status).toBe(428);
  });

  it("upgrades a hash with old parameters at the next successful login", async () => {
    const u = await staffUser(freshEmail("rehash"), GOOD_PASSWORD);
    const { hashPasswordWith } = await import("../../src/identity/signup/password");
    await e.DB.prepare("UPDATE users SET password_hash = ? WHERE id = ?")
      .bind(await hashPasswordWith(GOOD_PASSWORD, { ln: 12, r: 8, p: 1 }), u.session.user.id)
      .run();
    const res = await call("POST", "/api/v1/auth/login", {
      body: { email: u.email, password: GOOD_PASSWORD, totp_code: await totpCode(u.secret, 1) },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    const row = await e.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(u.session.user.id)
      .first<{ password_hash: string }>();
    // The current parameters: SCRYPT_PARAMS in production, the TEST_SCRYPT_COST binding's in this project.
    const { passwordCost } = await import("../../src/identity/signup/password");
    const { ln, r, p } = passwordCost();
    expect(`${ln},${r},${p}`).not.toBe("12,8,1");
    expect(row!.password_hash.startsWith(`$scrypt$ln=${ln},r=${r},p=${p}$`)).toBe(true);
  });
});
