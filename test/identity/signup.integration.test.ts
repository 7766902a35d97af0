import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { metricValue } from "../../src/identity/probes/metrics";
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
  signupVerified,
} from "../support/identity-helpers";

const DB = (env as unknown as { DB: D1Database }).DB;

describe("POST /auth/signup", () => {
  it("answers a new and an already registered e-mail with the identical 202; the owner gets a notice", async () => {
    const { email } = await signupVerified();
    const fresh = freshEmail();
    const a = await call("POST", "/api/v1/auth/signup", {
      body: { email: fresh, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    const b = await call("POST", "/api/v1/auth/signup", {
      body: { email: email.toUpperCase(), password: "another-long-password-9" },
      ip: freshIp(),
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(await a.text()).toBe(await b.text());
    expect((await outbox(fresh))[0]!.purpose).toBe("email_verify");
    const mails = await outbox(email);
    expect(mails[0]).toMatchObject({ purpose: "signup_notice", code: null });
    // No second account was created for the registered address.
    const rows = await DB.prepare("SELECT COUNT(*) AS n FROM email_addresses WHERE address = ?")
      .bind(email)
      .first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });

  it("creates the account in pending_verification", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip: freshIp() });
    const row = await DB.prepare(
      "SELECT u.status, u.password_hash, e.verified_at, e.is_primary FROM users u JOIN email_addresses e ON e.user_id = u.id WHERE e.address = ?",
    )
      .bind(email)
      .first<{ status: string; password_hash: string; verified_at: string | null; is_primary: number }>();
    expect(row).toMatchObject({ status: "pending_verification", verified_at: null, is_primary: 1 });
    expect(row!.password_hash).toMatch(/^\$scrypt\$/);
  });

  it("refuses an invalid e-mail with 400 INVALID_EMAIL", async () => {
    for (const email of ["not-an-email", "a@b", "x@@example.com", `${"a".repeat(65)}@example.com`]) {
      const p = await problem(
        await call("POST", "/api/v1/auth/signup", {
          body: { email, password: GOOD_PASSWORD },
          ip: freshIp(),
        }),
      );
      expect(p).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
    }
  });

  it("applies the 12-character minimum (11 refused, 12 accepted)", async () => {
    const short = await problem(
      await call("POST", "/api/v1/auth/signup", {
        body: { email: freshEmail(), password: "abcdefghijk" },
        ip: freshIp(),
      }),
    );
    expect(short).toMatchObject({ status: 400, code: "PASSWORD_TOO_WEAK" });
    const ok = await call("POST", "/api/v1/auth/signup", {
      body: { email: freshEmail(), password: "abcdefghijkl" },
      ip: freshIp(),
    });
    expect(ok.status).toBe(202);
  });

  it("refuses a password found in the breach corpus with 400 PASSWORD_BREACHED", async () => {
    const p = await problem(
      await call("POST", "/api/v1/auth/signup", {
        body: { email: freshEmail(), password: "password123456" },
        ip: freshIp(),
      }),
    );
    expect(p).toMatchObject({ status: 400, code: "PASSWORD_BREACHED" });
  });

  it("accepts when the corpus is unreachable (fail-open) and counts outcome=unavailable", async () => {
    const before = metricValue("auth_password_breach_checks_total", { outcome: "unavailable" });
    const res = await callWith(
      { BREACH_CHECK_URL: "https://breach-down.test/range/" },
      "POST",
      "/api/v1/auth/signup",
      {
        body: { email: freshEmail(), password: GOOD_PASSWORD },
        ip: freshIp(),
      },
    );
    expect(res.status).toBe(202);
    expect(metricValue("auth_password_breach_checks_total", { outcome: "unavailable" })).toBe(before + 1);
    const metrics = await (await callWith({}, "GET", "/metrics")).text();
    expect(metrics).toContain('auth_password_breach_checks_total{outcome="unavailable"}');
  });

  it("answers 503 PASSWORD_CHECK_UNAVAILABLE when fail-closed is on and the corpus is down", async () => {
    const email = freshEmail();
    const p = await problem(
      await callWith(
        { BREACH_CHECK_URL: "https://breach-down.test/range/", BREACH_CHECK_FAIL_CLOSED: "true" },
        "POST",
        "/api/v1/auth/signup",
        { body: { email, password: GOOD_PASSWORD }, ip: freshIp() },
      ),
    );
    expect(p).toMatchObject({ status: 503, code: "PASSWORD_CHECK_UNAVAILABLE" });
    expect(await outbox(email)).toEqual([]);
  });

  it("answers 501 when signup is switched off", async () => {
    const p = await problem(
      await callWith({ SIGNUP_ENABLED: "false" }, "POST", "/api/v1/auth/signup", {
        body: { email: freshEmail(), password: GOOD_PASSWORD },
        ip: freshIp(),
      }),
    );
    expect(p.status).toBe(501);
  });

  it("limits signups per e-mail (3 per hour) with 429 and Retry-After", async () => {
    const email = freshEmail();
    for (let i = 0; i < 3; i++) {
      const res = await call("POST", "/api/v1/auth/signup", {
        body: { email, password: GOOD_PASSWORD },
        ip: freshIp(),
      });
      expect(res.status).toBe(202);
    }
    const res = await call("POST", "/api/v1/auth/signup", {
      body: { email, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(res.status).toBe(429);
    expect((await json(res)).code).toBe("RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("limits signups per IP (10 per hour)", async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      // Short passwords are refused after the quota is counted: cheap requests that still spend it.
      const res = await call("POST", "/api/v1/auth/signup", {
        body: { email: freshEmail(), password: "short" },
        ip,
      });
      expect(res.status).toBe(400);
    }
    const res = await call("POST", "/api/v1/auth/signup", {
      body: { email: freshEmail(), password: GOOD_PASSWORD },
      ip,
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});

describe("POST /auth/email/verify/confirm", () => {
  it("activates the account, issues a session and burns the code", async () => {
    const email = freshEmail();
    const ip = freshIp();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip });
    const code = await latestCode(email, "email_verify");
    const ok = await call("POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip });
    expect(ok.status).toBe(200);
    const status = await DB.prepare(
      "SELECT u.status FROM users u JOIN email_addresses e ON e.user_id = u.id WHERE e.address = ?",
    )
      .bind(email)
      .first<{ status: string }>();
    expect(status!.status).toBe("active");
    const again = await problem(
      await call("POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip }),
    );
    expect(again).toMatchObject({ status: 401, code: "CODE_INVALID" });
  });

  it("gives the same 401 CODE_INVALID for a wrong code and an unknown address", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip: freshIp() });
    const wrong = await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email, code: "000000" },
      ip: freshIp(),
    });
    const unknown = await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email: freshEmail(), code: "000000" },
      ip: freshIp(),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toBe(await unknown.text());
  });

  it("kills the code after 5 wrong attempts (the right code then fails)", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip: freshIp() });
    const code = await latestCode(email, "email_verify");
    const wrong = code === "111111" ? "222222" : "111111";
    for (let i = 0; i < 5; i++) {
      await call("POST", "/api/v1/auth/email/verify/confirm", {
        body: { email, code: wrong },
        ip: freshIp(),
      });
    }
    const res = await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email, code },
      ip: freshIp(),
    });
    expect(res.status).toBe(401);
  });

  it("concurrent confirmations with the right code issue exactly one session", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip: freshIp() });
    const code = await latestCode(email, "email_verify");
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip: freshIp() }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });
});
