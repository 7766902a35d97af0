import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  signupVerified,
  staffUser,
  withStepUp,
} from "../support/identity-helpers";

function randomPhone() {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
}

describe("POST /auth/mfa/phone/start and /confirm", () => {
  it("sends an SMS code, and the confirmed phone becomes a login method", async () => {
    const u = await staffUser();
    const t = u.session.access_token;
    const phone = randomPhone();
    const start = await withStepUp(u.email, "POST", "/api/v1/auth/mfa/phone/start", {
      token: t,
      body: { phone },
    });
    expect(start.status).toBe(202);
    expect((await json<{ sent_to: string }>(start)).sent_to).toBe(`+1******${phone.slice(-4)}`);
    const [sms] = await outbox(phone);
    expect(sms).toMatchObject({ channel: "sms", purpose: "phone_verify" });
    // Not on the account until proven.
    expect(
      (
        await json<{ phone: { verified: boolean } }>(
          await call("GET", "/api/v1/auth/mfa/methods", { token: t }),
        )
      ).phone.verified,
    ).toBe(false);
    const res = await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms!.code } });
    expect(res.status).toBe(200);
    const login = await json<{ methods: string[] }>(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    expect(login.methods).toContain("sms");
  });

  it("validates E.164 before any provider call (400 INVALID_PHONE)", async () => {
    const { session } = await signupVerified();
    for (const phone of ["5550123", "+0123456789", "+1 555 abc", "+1234567890123456"]) {
      expect(
        await problem(
          await call("POST", "/api/v1/auth/mfa/phone/start", {
            token: session.access_token,
            body: { phone },
          }),
        ),
      ).toMatchObject({ status: 400, code: "INVALID_PHONE" });
    }
  });

  it("counts wrong codes (details.attempts_remaining), then 429; 404 without a pending verification", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: "123456" } }),
      ),
    ).toMatchObject({ status: 404, code: "PHONE_VERIFICATION_NOT_FOUND" });
    const phone = randomPhone();
    await call("POST", "/api/v1/auth/mfa/phone/start", { token: t, body: { phone } });
    const code = await latestCode(phone, "phone_verify");
    const wrong = code === "000000" ? "111111" : "000000";
    for (let remaining = 4; remaining >= 1; remaining--) {
      const p = await problem(
        await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: wrong } }),
      );
      expect(p).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
      expect(p.body.details).toEqual({ attempts_remaining: remaining });
    }
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: wrong } }),
      ),
    ).toMatchObject({ status: 429, code: "TOO_MANY_ATTEMPTS" });
    expect((await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code } })).status).toBe(
      429,
    );
  });

  it("501 SMS_DISABLED when SMS is off; 502 when the provider fails", async () => {
    const { session } = await signupVerified();
    const body = { phone: randomPhone() };
    expect(
      await problem(
        await callWith({ SMS_ENABLED: "false" }, "POST", "/api/v1/auth/mfa/phone/start", {
          token: session.access_token,
          body,
        }),
      ),
    ).toMatchObject({ status: 501, code: "SMS_DISABLED" });
    const down = await callWith(
      { DEV_OUTBOX: "false", SMS_PROVIDER_URL: "https://mail-down.test/sms" },
      "POST",
      "/api/v1/auth/mfa/phone/start",
      { token: session.access_token, body },
    );
    expect(down.status).toBe(502);
  });
});

describe("DELETE /auth/mfa/phone", () => {
  it("is idempotent (204 also when nothing existed) and removes the factor", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    expect((await call("DELETE", "/api/v1/auth/mfa/phone", { token: t })).status).toBe(204);
    const phone = randomPhone();
    await call("POST", "/api/v1/auth/mfa/phone/start", { token: t, body: { phone } });
    await call("POST", "/api/v1/auth/mfa/phone/confirm", {
      token: t,
      body: { code: await latestCode(phone, "phone_verify") },
    });
    expect((await call("DELETE", "/api/v1/auth/mfa/phone", { token: t })).status).toBe(204);
    expect(
      (
        await json<{ phone: { verified: boolean } }>(
          await call("GET", "/api/v1/auth/mfa/methods", { token: t }),
        )
      ).phone.verified,
    ).toBe(false);
  });
});
