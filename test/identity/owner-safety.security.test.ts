/**
 * Issue 9 (1, 3, 4): a stranger's failures cannot take away the owner's ways in, a magic link is a first
 * factor, and the mail of magic-link and reset requests never shows in the answer's timing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  request,
  type SessionBody,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const DB = (env as unknown as { DB: D1Database }).DB;

function deviceCookieOf(res: Response): string {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_device="));
  if (!cookie) throw new Error("no svc_device cookie");
  return cookie.split(";")[0]!;
}

function login(
  email: string,
  password: string,
  totp_code?: string,
  opts: { ip?: string; cookie?: string } = {},
) {
  return call("POST", "/api/v1/auth/login", {
    body: { email, password, totp_code },
    ip: opts.ip ?? freshIp(),
    headers: opts.cookie ? { cookie: opts.cookie } : {},
  });
}

function start(email: string, password: string, cookie?: string) {
  return call("POST", "/api/v1/auth/login/start", {
    body: { email, password },
    ip: freshIp(),
    headers: cookie ? { cookie } : {},
  });
}

/** The 16 requests of the review: 5 wrong passwords, 3 magic-link, 3 reset requests, 5 wrong codes. */
async function strangerAttack(email: string, ip: string) {
  for (let i = 0; i < 5; i++) await login(email, "wrong-password-long", "000000", { ip });
  for (let i = 0; i < 3; i++) await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip });
  for (let i = 0; i < 3; i++)
    await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip });
  for (let i = 0; i < 5; i++) {
    await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code: `${100000 + i}` }, ip });
  }
}

describe("a stranger cannot lock the owner out of every way in", () => {
  it("after the 16-request attack the owner's device signs in, magic link and reset still arrive, sessions refresh", async () => {
    const u = await staffUser();
    // The owner signed in on this device before: the answer set the device cookie.
    const first = await login(u.email, u.password, await totpCode(u.secret, 1));
    expect(first.status).toBe(200);
    const cookie = deviceCookieOf(first);
    expect(first.headers.getSetCookie().find((c) => c.startsWith("svc_device="))).toMatch(
      /HttpOnly.*|Path=\/api\/v1\/auth/i,
    );
    const owner = await json<SessionBody>(first);

    await strangerAttack(u.email, freshIp());
    // The stranger's client is locked out...
    expect((await start(u.email, u.password)).status).toBe(423);
    // ...the owner's device is not (the phased start proves the password; TOTP steps are spent).
    expect((await start(u.email, u.password, cookie)).status).toBe(200);
    // The owner's own requests for a code are answered and mailed.
    const ownerIp = freshIp();
    const before = (await outbox(u.email)).filter((m) => m.purpose === "magic_link").length;
    expect(
      (await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip: ownerIp }))
        .status,
    ).toBe(202);
    expect((await outbox(u.email)).filter((m) => m.purpose === "magic_link").length).toBe(before + 1);
    expect(
      (await call("POST", "/api/v1/auth/password/reset/request", { body: { email: u.email }, ip: ownerIp }))
        .status,
    ).toBe(202);
    // The existing session keeps refreshing.
    const refreshed = await call("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: owner.refresh_token },
      ip: ownerIp,
    });
    expect(refreshed.status).toBe(200);
  });

  it("a stranger's wrong typed codes exhaust the typed code, never the link in the owner's mailbox", async () => {
    const { email } = await signupVerified();
    const ownerIp = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: ownerIp });
    const message = (await outbox(email)).find((m) => m.purpose === "magic_link")!;
    const stranger = freshIp();
    for (let i = 0; i < 6; i++) {
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email, code: `${200000 + i}` },
        ip: stranger,
      });
    }
    expect(
      (
        await call("POST", "/api/v1/auth/magic-link/verify", {
          body: { email, code: message.code },
          ip: ownerIp,
        })
      ).status,
    ).toBe(401);
    const token = new URL(message.link!).searchParams.get("code")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const viaLink = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email, code: token },
      ip: ownerIp,
    });
    expect(viaLink.status).toBe(200);
    // Single use.
    expect(
      (await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code: token }, ip: ownerIp }))
        .status,
    ).toBe(401);
  });

  it("a stranger's requests do not retire the owner's live code", async () => {
    const { email } = await signupVerified();
    const ownerIp = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: ownerIp });
    const code = await latestCode(email, "magic_link");
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    const res = await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code }, ip: ownerIp });
    expect(res.status).toBe(200);
  });

  it("beyond the address-wide cap only the owner's device gets codes mailed; the answer never changes", async () => {
    const u = await signupVerified();
    // The owner signs in by magic link on this device (the session answer sets the device cookie).
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip: freshIp() });
    const cookie = deviceCookieOf(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email: u.email, code: await latestCode(u.email, "magic_link") },
        ip: freshIp(),
      }),
    );
    const count = async () => (await outbox(u.email)).filter((m) => m.purpose === "magic_link").length;
    for (let i = 0; i < 12; i++) {
      const res = await call("POST", "/api/v1/auth/magic-link/request", {
        body: { email: u.email },
        ip: freshIp(),
      });
      expect(res.status).toBe(202);
    }
    // 1 for the sign-in above, then the cap of 10 per hour: the 11th and 12th strangers got nothing.
    expect(await count()).toBe(10);
    const own = await call("POST", "/api/v1/auth/magic-link/request", {
      body: { email: u.email },
      ip: freshIp(),
      headers: { cookie },
    });
    expect(own.status).toBe(202);
    expect(await count()).toBe(11);
  });
});

describe("wrong passwords count per account, not per address", () => {
  it("3 wrong on one address and 2 on another lock the account", async () => {
    const { email, password, session } = await signupVerified();
    const second = freshEmail("second");
    await call("POST", "/api/v1/auth/emails", {
      token: session.access_token,
      body: { email: second },
      ip: freshIp(),
    });
    const code = await latestCode(second, "email_add");
    const verified = await call("POST", "/api/v1/auth/emails/verify", {
      token: session.access_token,
      body: { email: second, code },
      ip: freshIp(),
    });
    expect(verified.status).toBe(200);
    // Past any cooling-off of the added address.
    await DB.prepare("UPDATE email_addresses SET usable_at = NULL WHERE address = ?").bind(second).run();
    for (let i = 0; i < 3; i++) expect((await login(email, "wrong-password-long")).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await login(second, "wrong-password-long")).status).toBe(401);
    const locked = await problem(await login(email, password));
    expect(locked).toMatchObject({ status: 423, code: "ACCOUNT_LOCKED" });
  });

  it("a forged or another account's device cookie does not escape the lock", async () => {
    const a = await staffUser();
    const b = await staffUser();
    const bCookie = deviceCookieOf(await login(b.email, b.password, await totpCode(b.secret, 1)));
    for (let i = 0; i < 5; i++) await login(a.email, "wrong-password-long");
    const forged = bCookie.replace(/\.[0-9a-f]{64}$/, `.${"0".repeat(64)}`);
    for (const cookie of [bCookie, forged, "svc_device=dv1.garbage"]) {
      expect((await login(a.email, a.password, await totpCode(a.secret, 1), { cookie })).status).toBe(423);
    }
  });
});

describe("a magic link is a first factor", () => {
  it("for an account with TOTP it opens the phased-login challenge (no tokens, no e-mail method)", async () => {
    const u = await staffUser();
    const ip = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip });
    const res = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: u.email, code: await latestCode(u.email, "magic_link") },
      ip,
    });
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).not.toHaveProperty("access_token");
    expect(body).not.toHaveProperty("refresh_token");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("svc_session="))).toBe(false);
    expect(body).toMatchObject({ mfa_required: true, methods: ["totp", "recovery_code"] });
    // E-mail is not a second factor after the mailbox answered.
    const send = await problem(
      await call("POST", "/api/v1/auth/login/mfa/send", {
        body: { challenge: body.challenge, method: "email" },
        ip,
      }),
    );
    expect(send).toMatchObject({ status: 400, code: "METHOD_NOT_AVAILABLE" });
    const done = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: body.challenge, method: "totp", code: await totpCode(u.secret, 1) },
      ip,
    });
    expect(done.status).toBe(200);
    const session = await json<SessionBody>(done);
    const row = await DB.prepare("SELECT auth_method FROM sessions WHERE id = ?")
      .bind(session.session_id)
      .first();
    expect(row).toEqual({ auth_method: "magic_link_totp" });
  });

  it("for an account whose only second factor is a phone it opens the challenge with sms", async () => {
    const { email, session } = await signupVerified();
    const phone = `+1415555${String(Math.floor(Math.random() * 10000)).padStart(4, "0")}`;
    const t = session.access_token;
    expect((await call("POST", "/api/v1/auth/mfa/phone/start", { token: t, body: { phone } })).status).toBe(
      202,
    );
    const sms = (await outbox(phone)).find((m) => m.purpose === "phone_verify")!;
    expect(
      (await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms.code } })).status,
    ).toBe(200);
    const ip = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip });
    const res = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email, code: await latestCode(email, "magic_link") },
      ip,
    });
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).not.toHaveProperty("access_token");
    expect(body).toMatchObject({ mfa_required: true, methods: ["sms"] });
  });

  it("for an account without a second factor it still issues a session", async () => {
    const { email } = await signupVerified();
    const ip = freshIp();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip });
    const res = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email, code: await latestCode(email, "magic_link") },
      ip,
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toHaveProperty("access_token");
  });
});

describe("magic-link and reset requests cost the same with a slow provider", () => {
  async function timed(path: string, email: string): Promise<number> {
    const { app } = await import("../../src/identity/core/app");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    const ctx = createExecutionContext();
    const started = performance.now();
    const res = await app.fetch(
      request("POST", path, { body: { email }, ip: freshIp() }),
      { ...(env as object), DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-slow.test/send" },
      ctx,
    );
    const elapsed = performance.now() - started;
    expect(res.status).toBe(202);
    await waitOnExecutionContext(ctx);
    return elapsed;
  }

  it("answers before the provider (3 s) for an existing account, like for an unknown address", async () => {
    const { email } = await signupVerified();
    for (const path of ["/api/v1/auth/magic-link/request", "/api/v1/auth/password/reset/request"]) {
      expect(await timed(path, email)).toBeLessThan(2000);
      expect(await timed(path, freshEmail())).toBeLessThan(2000);
    }
  });
});
