import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshIp,
  json,
  latestCode,
  problem,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

describe("TOTP enrollment", () => {
  it("a confirmed factor cannot be silently replaced (409); a wrong confirmation code is 401", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    expect(
      (await call("POST", "/api/v1/auth/mfa/totp/confirm", { token: t, body: { code: "123456" } })).status,
    ).toBe(404);
    const { secret } = await json<{ secret: string }>(
      await call("POST", "/api/v1/auth/mfa/totp", { token: t }),
    );
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/totp/confirm", { token: t, body: { code: "000000" } }),
      ),
    ).toMatchObject({ status: 401, code: "MFA_INVALID_CODE" });
    expect(
      (
        await call("POST", "/api/v1/auth/mfa/totp/confirm", {
          token: t,
          body: { code: await totpCode(secret) },
        })
      ).status,
    ).toBe(200);
    expect(await problem(await call("POST", "/api/v1/auth/mfa/totp", { token: t }))).toMatchObject({
      status: 409,
      code: "TOTP_ALREADY_ENROLLED",
    });
  });

  it("stores the secret encrypted, not in plain text", async () => {
    const { session } = await signupVerified();
    const { secret } = await json<{ secret: string }>(
      await call("POST", "/api/v1/auth/mfa/totp", { token: session.access_token }),
    );
    const row = await e.DB.prepare("SELECT secret_enc FROM totp_factors WHERE user_id = ?")
      .bind(session.user.id)
      .first<{ secret_enc: string }>();
    expect(row!.secret_enc).not.toContain(secret);
  });
});

describe("DELETE /auth/mfa/totp (step-up)", () => {
  it("428 then 204 with the code; idempotent afterwards", async () => {
    const u = await staffUser();
    const t = u.session.access_token;
    expect((await call("DELETE", "/api/v1/auth/mfa/totp", { token: t })).status).toBe(428);
    const code = await latestCode(u.email, "sensitive_action");
    expect(
      (await call("DELETE", "/api/v1/auth/mfa/totp", { token: t, headers: { "x-step-up-code": "999999" } }))
        .status,
    ).toBe(code === "999999" ? 204 : 401);
    expect(
      (await call("DELETE", "/api/v1/auth/mfa/totp", { token: t, headers: { "x-step-up-code": code } }))
        .status,
    ).toBe(204);
    const methods = await json<{ totp: { enrolled: boolean } }>(
      await call("GET", "/api/v1/auth/mfa/methods", { token: t }),
    );
    expect(methods.totp.enrolled).toBe(false);
    await call("DELETE", "/api/v1/auth/mfa/totp", { token: t });
    const again = await latestCode(u.email, "sensitive_action");
    expect(
      (await call("DELETE", "/api/v1/auth/mfa/totp", { token: t, headers: { "x-step-up-code": again } }))
        .status,
    ).toBe(204);
  });
});

describe("POST /auth/mfa/recovery-codes/generate (step-up)", () => {
  it("returns a new pool of 10 once and invalidates the old pool", async () => {
    const u = await staffUser();
    const t = u.session.access_token;
    expect((await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", { token: t })).status).toBe(428);
    const code = await latestCode(u.email, "sensitive_action");
    const res = await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", {
      token: t,
      headers: { "x-step-up-code": code },
    });
    expect(res.status).toBe(200);
    const { recovery_codes } = await json<{ recovery_codes: string[] }>(res);
    expect(recovery_codes).toHaveLength(10);
    expect(new Set(recovery_codes).size).toBe(10);
    const stored = await e.DB.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?")
      .bind(u.session.user.id)
      .all<{
        code_hash: string;
      }>();
    expect(stored.results).toHaveLength(10);
    expect(stored.results.some((r) => recovery_codes.includes(r.code_hash))).toBe(false);

    const start = await json<{ challenge: string }>(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    const old = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: start.challenge, method: "recovery_code", code: u.recoveryCodes[0] },
      ip: freshIp(),
    });
    expect(old.status).toBe(401);
    const fresh = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: start.challenge, method: "recovery_code", code: recovery_codes[0] },
      ip: freshIp(),
    });
    expect(fresh.status).toBe(200);
  });
});

describe("GET /auth/mfa/methods", () => {
  it("describes the caller's factors", async () => {
    const u = await staffUser();
    const res = await call("GET", "/api/v1/auth/mfa/methods", { token: u.session.access_token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      totp: { enrolled: true },
      passkeys: { enabled: true, count: 0 },
      phone: { enabled: true, verified: false },
      recovery_codes: { remaining: 10 },
      email: { available: true },
    });
    expect((await call("GET", "/api/v1/auth/mfa/methods")).status).toBe(401);
  });
});

describe("organizations", () => {
  it("validates the slug (400 BAD_SLUG), refuses a taken one (409 SLUG_TAKEN), needs a Bearer (401)", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    expect(
      await problem(
        await call("POST", "/api/v1/auth/orgs", { token: t, body: { name: "X", slug: "Not A Slug!" } }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_SLUG" });
    expect(
      (await problem(await call("POST", "/api/v1/auth/orgs", { token: t, body: { slug: "ok" } }))).status,
    ).toBe(400);
    const slug = `taken-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call("POST", "/api/v1/auth/orgs", { token: t, body: { name: "A", slug } })).status).toBe(
      201,
    );
    expect(
      await problem(await call("POST", "/api/v1/auth/orgs", { token: t, body: { name: "B", slug } })),
    ).toMatchObject({
      status: 409,
      code: "SLUG_TAKEN",
    });
    expect((await call("POST", "/api/v1/auth/orgs", { body: { name: "C", slug: "c-org" } })).status).toBe(
      401,
    );
  });

  it("lists only the caller's organizations", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    await call("POST", "/api/v1/auth/orgs", {
      token: a.session.access_token,
      body: { name: "A org", slug: `a-${crypto.randomUUID().slice(0, 8)}` },
    });
    expect(
      (
        await json<{ items: unknown[] }>(
          await call("GET", "/api/v1/auth/orgs", { token: b.session.access_token }),
        )
      ).items,
    ).toEqual([]);
  });
});
