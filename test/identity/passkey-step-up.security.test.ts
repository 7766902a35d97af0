/**
 * Issue 31, "Passkeys": passkey-first sign-in makes a passkey a complete login, so a passkey must never be
 * added with the access token alone. The attack: a stolen 15-minute access token registers its own
 * passkey on an account without a factor; the owner resets the password; the thief signs in with the
 * passkey alone and reads GET /auth/me as the owner. Every registration, the first included, now costs
 * the step-up; each passkey records whether it did; a password reset ends every passkey registered
 * without it (those from before the change included), and its mail lists what is left on the account.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshIp,
  json,
  latestCode,
  problem,
  registerPasskey,
  type SessionBody,
  signupVerified,
  softAuthenticator,
  staffUser,
  webauthnParty,
  withStepUp,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

const BEGIN = "/api/v1/auth/mfa/passkey/register/begin";
const FINISH = "/api/v1/auth/mfa/passkey/register/finish";
const NEW_PASSWORD = "the-owner-takes-it-back-2031";

type Authenticator = Awaited<ReturnType<typeof softAuthenticator>>;

const handleOf = (userId: string) =>
  btoa(userId).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");

async function count(sql: string, ...args: string[]): Promise<number> {
  const row = await e.DB.prepare(sql)
    .bind(...args)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

const passkeysOf = (userId: string) => count("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ?", userId);
const ceremoniesOf = (userId: string) =>
  count("SELECT COUNT(*) AS n FROM passkey_ceremonies WHERE user_id = ?", userId);

/**
 * A passkey stored without the step-up, as every registration on an account without a factor was before
 * issue 31 (the row the migration left: `stepped_up` 0).
 */
async function passkeyWithoutStepUp(userId: string, name: string | null = null) {
  const authenticator = await softAuthenticator();
  await e.DB.prepare(
    "INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, discoverable, name, created_at) VALUES (?, ?, ?, ?, 0, 1, ?, ?)",
  )
    .bind(
      crypto.randomUUID(),
      userId,
      authenticator.credentialId,
      authenticator.publicKey,
      name,
      new Date().toISOString(),
    )
    .run();
  return authenticator;
}

/** Passkey-first sign-in (no address, no password) with `authenticator`'s discoverable credential. */
async function signInWithPasskeyAlone(authenticator: Authenticator, userId: string, counter: number) {
  const begin = await call("POST", "/api/v1/auth/login/passkey/begin", { body: {}, ip: freshIp() });
  expect(begin.status).toBe(200);
  const { publicKey } = await json<{ publicKey: { challenge: string } }>(begin);
  const credential = await authenticator.assert({
    challenge: publicKey.challenge,
    ...webauthnParty(),
    counter,
    userHandle: handleOf(userId),
  });
  return call("POST", "/api/v1/auth/login/passkey/finish", { body: { credential }, ip: freshIp() });
}

async function resetPassword(email: string) {
  await call("POST", "/api/v1/auth/password/reset/request", { body: { email }, ip: freshIp() });
  const code = await latestCode(email, "password_reset");
  return call("POST", "/api/v1/auth/password/reset/confirm", {
    body: { email, code, new_password: NEW_PASSWORD },
    ip: freshIp(),
  });
}

async function resetNotice(to: string) {
  return e.DB.prepare(
    "SELECT subject, body, link FROM outbox_messages WHERE to_address = ? AND purpose = 'password_reset_notice' ORDER BY id DESC LIMIT 1",
  )
    .bind(to)
    .first<{ subject: string; body: string; link: string | null }>();
}

describe("POST /auth/mfa/passkey/register/begin: every passkey costs the step-up, the first included", () => {
  it("a stolen access token on an account without a factor: 428 STEP_UP_REQUIRED, no ceremony, nothing to finish", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    const stolen = owner.session.access_token;

    const p = await problem(await call("POST", BEGIN, { token: stolen, body: {} }));
    expect(p).toMatchObject({ status: 428, code: "STEP_UP_REQUIRED" });
    expect(p.body.details).toMatchObject({ channel: "email" });
    expect(String(p.body.details?.sent_to)).toContain("***");
    // The code went to the owner's mailbox, not to the caller.
    expect(await latestCode(owner.email, "sensitive_action")).toMatch(/^\d{6}$/);
    expect(await ceremoniesOf(userId)).toBe(0);

    // The thief attests anyway, for a challenge of its own: no ceremony was opened, none finishes.
    const thief = await softAuthenticator();
    const credential = await thief.attest({
      challenge: "dGhlLXRoaWVmcy1vd24tY2hhbGxlbmdl",
      ...webauthnParty(),
    });
    expect(await problem(await call("POST", FINISH, { token: stolen, body: { credential } }))).toMatchObject({
      status: 401,
      code: "PASSKEY_CEREMONY_INVALID",
    });
    expect(await passkeysOf(userId)).toBe(0);
    expect(await problem(await signInWithPasskeyAlone(thief, userId, 1))).toMatchObject({
      status: 401,
      code: "PASSKEY_INVALID",
    });
  });

  it("a wrong code: 401 CODE_INVALID; the code cannot be sent: 503 STEP_UP_UNAVAILABLE; no ceremony either way", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    const token = owner.session.access_token;
    await call("POST", BEGIN, { token, body: {} });
    const code = await latestCode(owner.email, "sensitive_action");
    const wrong = code === "000000" ? "111111" : "000000";
    expect(
      await problem(await call("POST", BEGIN, { token, body: {}, headers: { "x-step-up-code": wrong } })),
    ).toMatchObject({ status: 401, code: "CODE_INVALID" });
    const down = { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" };
    expect(await problem(await callWith(down, "POST", BEGIN, { token, body: {} }))).toMatchObject({
      status: 503,
      code: "STEP_UP_UNAVAILABLE",
    });
    expect(await ceremoniesOf(userId)).toBe(0);
    expect(await passkeysOf(userId)).toBe(0);
  });

  it("a recent sign-in is no proof: the session the signup just opened still gets 428", async () => {
    const owner = await signupVerified();
    const res = await call("POST", BEGIN, { token: owner.session.access_token, body: {} });
    expect(res.status).toBe(428);
  });

  it("with the code the first passkey registers (finish asks for no second code) and signs in alone", async () => {
    const owner = await signupVerified();
    const { authenticator, passkey } = await registerPasskey(owner, {
      name: "laptop",
      credProps: { rk: true },
    });
    expect(passkey.name).toBe("laptop");
    const res = await signInWithPasskeyAlone(authenticator, owner.session.user.id, 1);
    expect(res.status).toBe(200);
  });

  it("finish completes only a ceremony opened with the proof (one opened without it before the change does not)", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    const challenge = "b3BlbmVkLWJlZm9yZS10aGUtY2hhbmdl";
    await e.DB.prepare(
      "INSERT INTO passkey_ceremonies (user_id, challenge, expires_at, stepped_up) VALUES (?, ?, ?, 0)",
    )
      .bind(userId, challenge, new Date(Date.now() + 300_000).toISOString())
      .run();
    const credential = await (await softAuthenticator()).attest({ challenge, ...webauthnParty() });
    const res = await call("POST", FINISH, { token: owner.session.access_token, body: { credential } });
    expect(await problem(res)).toMatchObject({ status: 401, code: "PASSKEY_CEREMONY_INVALID" });
    expect(await passkeysOf(userId)).toBe(0);
    expect(await ceremoniesOf(userId)).toBe(0);
  });

  it("each passkey records whether it was registered with the step-up", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    await passkeyWithoutStepUp(userId, "from before");
    const { passkey } = await registerPasskey(owner, { name: "proven" });
    const rows = await e.DB.prepare("SELECT name, stepped_up FROM passkeys WHERE user_id = ? ORDER BY name")
      .bind(userId)
      .all<{ name: string; stepped_up: number }>();
    expect(rows.results).toEqual([
      { name: "from before", stepped_up: 0 },
      { name: "proven", stepped_up: 1 },
    ]);
    expect(passkey.id).toBeTruthy();
  });
});

describe("POST /auth/password/reset/confirm ends every passkey registered without the step-up", () => {
  it("the attack: the thief's passkey signs in as the owner until the owner's reset; after it, passkey-first sign-in fails", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    const thief = await passkeyWithoutStepUp(userId);

    // Before the reset the planted passkey is a whole login: the thief reads the owner's account.
    const before = await signInWithPasskeyAlone(thief, userId, 1);
    expect(before.status).toBe(200);
    const thiefSession = await json<SessionBody>(before);
    const me = await call("GET", "/api/v1/auth/me", { token: thiefSession.access_token });
    expect(me.status).toBe(200);
    expect((await json<{ email: string }>(me)).email).toBe(owner.email);

    expect((await resetPassword(owner.email)).status).toBe(204);

    expect(await passkeysOf(userId)).toBe(0);
    expect(await problem(await signInWithPasskeyAlone(thief, userId, 2))).toMatchObject({
      status: 401,
      code: "PASSKEY_INVALID",
    });
    expect((await call("GET", "/api/v1/auth/me", { token: thiefSession.access_token })).status).toBe(401);
  });

  it("a passkey registered with the step-up survives the reset and still signs in alone", async () => {
    const owner = await signupVerified();
    const userId = owner.session.user.id;
    const { authenticator } = await registerPasskey(owner, { name: "mine", credProps: { rk: true } });
    const planted = await passkeyWithoutStepUp(userId, "planted");

    expect((await resetPassword(owner.email)).status).toBe(204);

    const left = await e.DB.prepare("SELECT name FROM passkeys WHERE user_id = ?")
      .bind(userId)
      .all<{ name: string }>();
    expect(left.results.map((r) => r.name)).toEqual(["mine"]);
    const res = await signInWithPasskeyAlone(authenticator, userId, 1);
    expect(res.status).toBe(200);
    const me = await call("GET", "/api/v1/auth/me", { token: (await json<SessionBody>(res)).access_token });
    expect((await json<{ email: string }>(me)).email).toBe(owner.email);
    expect((await signInWithPasskeyAlone(planted, userId, 1)).status).toBe(401);
  });

  it("the reset ends nothing on another account, and a refused reset (wrong code) ends nothing", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    await passkeyWithoutStepUp(a.session.user.id);
    await passkeyWithoutStepUp(b.session.user.id);

    await call("POST", "/api/v1/auth/password/reset/request", { body: { email: a.email }, ip: freshIp() });
    const code = await latestCode(a.email, "password_reset");
    const wrong = code === "000000" ? "111111" : "000000";
    const refused = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: a.email, code: wrong, new_password: NEW_PASSWORD },
      ip: freshIp(),
    });
    expect(await problem(refused)).toMatchObject({ status: 401, code: "CODE_INVALID" });
    expect(await passkeysOf(a.session.user.id)).toBe(1);

    expect((await resetPassword(a.email)).status).toBe(204);
    expect(await passkeysOf(a.session.user.id)).toBe(0);
    expect(await passkeysOf(b.session.user.id)).toBe(1);
  });

  it("the security events show the passkeys the reset ended", async () => {
    const owner = await signupVerified();
    await passkeyWithoutStepUp(owner.session.user.id, "planted");
    expect((await resetPassword(owner.email)).status).toBe(204);
    const rows = await e.DB.prepare(
      "SELECT type, method, detail FROM security_events WHERE user_id = ? AND type = 'factor_removed'",
    )
      .bind(owner.session.user.id)
      .all<{ type: string; method: string; detail: string }>();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]).toMatchObject({ method: "passkey" });
    expect(rows.results[0]!.detail).toContain("password reset");
  });
});

describe("the reset's confirmation mail lists what is still on the account", () => {
  it("factors and passkeys by kind and name, the phone masked, what the reset ended, and the account page's address", async () => {
    const owner = await staffUser();
    const userId = owner.session.user.id;
    const token = owner.session.access_token;
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const start = await withStepUp(owner.email, "POST", "/api/v1/auth/mfa/phone/start", {
      token,
      body: { phone },
    });
    expect(start.status).toBe(202);
    const sms = await latestCode(phone, "phone_verify");
    expect(
      (await call("POST", "/api/v1/auth/mfa/phone/confirm", { token, body: { code: sms } })).status,
    ).toBe(200);
    await registerPasskey(owner, { name: "Work laptop" });
    await passkeyWithoutStepUp(userId, "Old tablet");

    expect((await resetPassword(owner.email)).status).toBe(204);

    const notice = await resetNotice(owner.email);
    expect(notice).not.toBeNull();
    const body = notice!.body;
    expect(body).toContain("authenticator app");
    expect(body).toContain('"Work laptop"');
    expect(body).toContain(`${phone.slice(0, 2)}`);
    expect(body).toContain(phone.slice(-4));
    expect(body).not.toContain(phone);
    expect(body).toContain("10 unused recovery codes");
    // What the reset ended is named as ended, not as still there.
    const [still, ended] = [body.indexOf("Still on your account"), body.indexOf('"Old tablet"')];
    expect(ended).toBeGreaterThan(-1);
    expect(body.slice(0, ended)).toMatch(/The reset removed 1 passkey \($/);
    expect(still).toBeGreaterThan(ended);
    expect(body.slice(still)).not.toContain("Old tablet");
    // The account page, and no bearer link: nothing in the mail signs in or acts by itself.
    const page = `${e.ISSUER}/auth/account`;
    expect(body).toContain(page);
    expect(notice!.link).toBe(page);
    expect(body).not.toMatch(/token=|code=/);
  });

  it("an account with no factor left is told so", async () => {
    const owner = await signupVerified();
    await passkeyWithoutStepUp(owner.session.user.id, "planted");
    expect((await resetPassword(owner.email)).status).toBe(204);
    const body = (await resetNotice(owner.email))!.body;
    expect(body).toMatch(/no second factor and no passkey/i);
    expect(body).toContain('"planted"');
  });
});
