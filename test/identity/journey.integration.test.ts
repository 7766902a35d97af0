import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  outbox,
  type SessionBody,
  totpCode,
} from "../support/identity-helpers";

describe("walking skeleton: signup -> verify -> TOTP -> login -> organization", () => {
  it("runs end to end with the specified shapes", async () => {
    const email = freshEmail("journey");
    const ip = freshIp();

    const signup = await call("POST", "/api/v1/auth/signup", {
      body: { email, password: GOOD_PASSWORD },
      ip,
    });
    expect(signup.status).toBe(202);
    const [verifyMail] = await outbox(email);
    expect(verifyMail).toMatchObject({ to: email, channel: "email", purpose: "email_verify" });
    expect(verifyMail!.code).toMatch(/^\d{6}$/);

    // Before confirmation no session is issued: the right password gets 403 EMAIL_NOT_VERIFIED.
    const early = await call("POST", "/api/v1/auth/login", {
      body: { email, password: GOOD_PASSWORD, totp_code: "000000" },
      ip,
    });
    expect(early.status).toBe(403);
    expect((await json(early)).code).toBe("EMAIL_NOT_VERIFIED");

    const confirm = await call("POST", "/api/v1/auth/email/verify/confirm", {
      body: { email, code: await latestCode(email, "email_verify") },
      ip,
    });
    expect(confirm.status).toBe(200);
    const first = await json<SessionBody>(confirm);
    expect(Object.keys(first).sort()).toEqual(
      ["access_token", "expires_in", "refresh_token", "session_id", "token_type", "user"].sort(),
    );
    expect(first.token_type).toBe("Bearer");
    expect(first.expires_in).toBe(900);
    expect(first.user.email).toBe(email);
    const cookies = confirm.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("svc_session="))).toBeTruthy();
    const refreshCookie = cookies.find((c) => c.startsWith("svc_refresh="))!;
    expect(refreshCookie).toMatch(/HttpOnly/i);
    expect(refreshCookie).toMatch(/SameSite=Lax/i);
    expect(refreshCookie).toMatch(/Path=\/api\/v1\/auth/);
    expect(refreshCookie).not.toMatch(/Secure/i);

    const enroll = await call("POST", "/api/v1/auth/mfa/totp", { token: first.access_token });
    expect(enroll.status).toBe(200);
    const { secret, otpauth_uri } = await json<{ secret: string; otpauth_uri: string }>(enroll);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\//);

    const confirmTotp = await call("POST", "/api/v1/auth/mfa/totp/confirm", {
      token: first.access_token,
      body: { code: await totpCode(secret) },
    });
    expect(confirmTotp.status).toBe(200);
    expect((await json(confirmTotp)).recovery_codes).toHaveLength(10);

    const login = await call("POST", "/api/v1/auth/login", {
      body: { email, password: GOOD_PASSWORD, totp_code: await totpCode(secret, 1) },
      ip,
    });
    expect(login.status).toBe(200);
    const session = await json<SessionBody>(login);
    expect(session.user.id).toBe(first.user.id);

    const created = await call("POST", "/api/v1/auth/orgs", {
      token: session.access_token,
      body: { name: "Acme News", slug: `acme-${crypto.randomUUID().slice(0, 8)}` },
    });
    expect(created.status).toBe(201);
    const org = await json<{ id: string; slug: string }>(created);
    expect(org).toMatchObject({ name: "Acme News", role: "org_owner" });

    const mine = await call("GET", "/api/v1/auth/orgs", { token: session.access_token });
    expect(mine.status).toBe(200);
    expect((await json(mine)).items).toEqual([
      { id: org.id, name: "Acme News", slug: org.slug, role: "org_owner" },
    ]);
  });
});
