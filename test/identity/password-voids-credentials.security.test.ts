/**
 * Issue 18 item 2: a password reset or change voids every unconsumed one-time code and link token of the
 * account (magic_link, password_reset, email_verify, email_add, sensitive_action) and every open login
 * challenge, in the same write that changes the password. Codes issued after it work.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  outbox,
  problem,
  signupVerified,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const NEW_PASSWORD = "another-long-unusual-passphrase-77";

async function latestLinkToken(to: string, purpose: string): Promise<string> {
  const link = (await outbox(to)).find((m) => m.purpose === purpose)?.link;
  if (!link) throw new Error(`no ${purpose} link for ${to}`);
  return new URL(link).searchParams.get("code")!;
}

async function mailMagicLink(email: string) {
  expect(
    (await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() })).status,
  ).toBe(202);
  return { code: await latestCode(email, "magic_link"), link: await latestLinkToken(email, "magic_link") };
}

function magicLinkVerify(email: string, code: string) {
  return call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code }, ip: freshIp() });
}

async function resetPassword(email: string, password = NEW_PASSWORD) {
  await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip: freshIp() });
  const code = await latestCode(email, "password_reset");
  const res = await call("POST", "/api/v1/auth/password/reset/confirm", {
    body: { email, code, new_password: password },
    ip: freshIp(),
  });
  expect(res.status).toBe(204);
}

async function changePassword(owner: { email: string; password: string; session: { access_token: string } }) {
  const token = owner.session.access_token;
  const body = { current_password: owner.password, new_password: NEW_PASSWORD };
  expect((await call("POST", "/api/v1/auth/password/change", { token, body })).status).toBe(428);
  const code = await latestCode(owner.email, "sensitive_action");
  const res = await call("POST", "/api/v1/auth/password/change", {
    token,
    body,
    headers: { "x-step-up-code": code },
  });
  expect(res.status).toBe(204);
}

async function loginStart(email: string, password: string) {
  const res = await call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() });
  expect(res.status).toBe(200);
  return (await json<{ challenge: string }>(res)).challenge;
}

function mfaVerify(challenge: string, code: string) {
  return call("POST", "/api/v1/auth/login/mfa/verify", {
    body: { challenge, method: "totp", code },
    ip: freshIp(),
  });
}

async function liveCodes(userId: string) {
  const row = await e.DB.prepare(
    "SELECT COUNT(*) AS n FROM otp_codes WHERE user_id = ? AND used_at IS NULL AND purpose != 'phone_verify'",
  )
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("a password reset", () => {
  it("voids a magic link (link and typed code) mailed before it; one mailed after signs in", async () => {
    const owner = await signupVerified();
    const before = await mailMagicLink(owner.email);
    await resetPassword(owner.email);
    for (const code of [before.link, before.code]) {
      expect(await problem(await magicLinkVerify(owner.email, code))).toMatchObject({
        status: 401,
        code: "CODE_INVALID",
      });
    }
    const after = await mailMagicLink(owner.email);
    expect((await magicLinkVerify(owner.email, after.link)).status).toBe(200);
  });

  it("voids a login challenge opened before it: neither a code is sent nor a session issued", async () => {
    const owner = await staffUser();
    const challenge = await loginStart(owner.email, owner.password);
    await resetPassword(owner.email);
    expect(await problem(await mfaVerify(challenge, await totpCode(owner.secret, 1)))).toMatchObject({
      status: 401,
      code: "CHALLENGE_INVALID",
    });
    const send = await call("POST", "/api/v1/auth/login/mfa/send", {
      body: { challenge, method: "email" },
      ip: freshIp(),
    });
    expect(await problem(send)).toMatchObject({ status: 401, code: "CHALLENGE_INVALID" });
    // A challenge opened after the reset, with the new password, signs in.
    const fresh = await loginStart(owner.email, NEW_PASSWORD);
    expect((await mfaVerify(fresh, await totpCode(owner.secret, 1))).status).toBe(200);
  });

  it("voids a magic link's challenge opened before it (an account with a second factor)", async () => {
    const owner = await staffUser();
    const { link } = await mailMagicLink(owner.email);
    const opened = await json<{ challenge: string }>(await magicLinkVerify(owner.email, link));
    await resetPassword(owner.email);
    expect(await problem(await mfaVerify(opened.challenge, await totpCode(owner.secret, 1)))).toMatchObject({
      status: 401,
      code: "CHALLENGE_INVALID",
    });
  });

  it("voids every unconsumed code of the account in the same write; a second reset link mailed before is dead", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const userId = owner.session.user.id;
    await call("POST", "/api/v1/auth/emails", {
      token: t,
      body: { email: freshEmail("extra") },
      ip: freshIp(),
    });
    await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", { token: t });
    await mailMagicLink(owner.email);
    await call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: owner.email },
      ip: freshIp(),
    });
    const olderReset = await latestLinkToken(owner.email, "password_reset");
    expect(await liveCodes(userId)).toBeGreaterThanOrEqual(4);
    await resetPassword(owner.email);
    expect(await liveCodes(userId)).toBe(0);
    const reuse = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: owner.email, code: olderReset, new_password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(await problem(reuse)).toMatchObject({ status: 401, code: "CODE_INVALID" });
  });
});

describe("a password change", () => {
  it("voids a magic link mailed before it and a login challenge opened before it; new ones work", async () => {
    const owner = await staffUser();
    const { link } = await mailMagicLink(owner.email);
    const challenge = await loginStart(owner.email, owner.password);
    await changePassword(owner);
    expect(await problem(await magicLinkVerify(owner.email, link))).toMatchObject({
      status: 401,
      code: "CODE_INVALID",
    });
    expect(await problem(await mfaVerify(challenge, await totpCode(owner.secret, 1)))).toMatchObject({
      status: 401,
      code: "CHALLENGE_INVALID",
    });
    expect(await liveCodes(owner.session.user.id)).toBe(0);
    const after = await mailMagicLink(owner.email);
    expect((await magicLinkVerify(owner.email, after.link)).status).toBe(200);
  });
});
