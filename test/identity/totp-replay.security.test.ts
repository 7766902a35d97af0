/**
 * A TOTP code whose time step was already spent (two tools signing in within one 30 s step) keeps the
 * spec's 401 MFA_INVALID_CODE and still counts as a wrong attempt, but says why: `details.reason:
 * "code_already_used"` and a message telling the caller to wait for the next code. A code that is simply
 * wrong says nothing of the kind.
 */
import { describe, expect, it } from "vitest";
import { call, freshIp, json, problem, staffUser, totpCode } from "../support/identity-helpers";

function login(email: string, password: string, totp_code: string, ip = freshIp()) {
  return call("POST", "/api/v1/auth/login", { body: { email, password, totp_code }, ip });
}

async function wrongCode(secret: string): Promise<string> {
  const near = new Set(await Promise.all([-1, 0, 1, 2].map((o) => totpCode(secret, o))));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, "0");
    if (!near.has(candidate)) return candidate;
  }
}

describe("a TOTP code already used", () => {
  it("POST /login: 401 MFA_INVALID_CODE with reason code_already_used, and each replay counts", async () => {
    const u = await staffUser();
    const code = await totpCode(u.secret, 1);
    expect((await login(u.email, u.password, code)).status).toBe(200);

    for (let i = 0; i < 5; i++) {
      const replay = await problem(await login(u.email, u.password, code));
      expect(replay).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
      expect(replay.body.details).toMatchObject({ reason: "code_already_used" });
      expect(replay.body.detail).toMatch(/already used/i);
    }
    // The five replays were five wrong attempts: the account's guard now refuses even the right code.
    expect((await login(u.email, u.password, await totpCode(u.secret, 2))).status).toBe(423);
  });

  it("POST /login: a wrong code gives no reason", async () => {
    const u = await staffUser();
    const wrong = await problem(await login(u.email, u.password, await wrongCode(u.secret)));
    expect(wrong).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
    expect(wrong.body.details?.reason).toBeUndefined();
    expect(wrong.body.detail).not.toMatch(/already used/i);
  });

  it("POST /login/mfa/verify: the reason beside attempts_remaining, which still goes down", async () => {
    const u = await staffUser();
    // The enrolment's confirmation spent the current step.
    const code = await totpCode(u.secret, 0);

    const ip = freshIp();
    const start = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip,
    });
    expect(start.status).toBe(200);
    const { challenge } = await json<{ challenge: string }>(start);
    const verify = (c: string) =>
      call("POST", "/api/v1/auth/login/mfa/verify", { body: { challenge, method: "totp", code: c }, ip });

    const first = await problem(await verify(code));
    expect(first).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
    expect(first.body.details).toEqual({ attempts_remaining: 4, reason: "code_already_used" });
    expect(first.body.detail).toMatch(/already used/i);

    const wrong = await problem(await verify(await wrongCode(u.secret)));
    expect(wrong.body.details).toEqual({ attempts_remaining: 3 });

    const second = await problem(await verify(code));
    expect(second.body.details).toEqual({ attempts_remaining: 2, reason: "code_already_used" });

    // The next step's code is still good on the same challenge.
    expect((await verify(await totpCode(u.secret, 1))).status).toBe(200);
  });
});
