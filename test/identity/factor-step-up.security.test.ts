/**
 * Issue 18 item 1: a stolen access token cannot plant its own second factor. Adding a sign-in factor
 * (TOTP, phone, passkey) to an account that already has one costs the step-up on the ceremony's first
 * call, bound to that ceremony; a first TOTP or phone costs only the access token, a passkey never does
 * (issue 31: it signs in alone; test/identity/passkey-step-up.security.test.ts). Every factor added and
 * every recovery pool generated tells the primary address at once with a signed one-click undo that
 * removes it and ends every session.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signDisownToken } from "../../src/identity/emails/address-disown";
import {
  call,
  callWith,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  registerPasskey,
  type SessionBody,
  signupVerified,
  softAuthenticator,
  staffUser,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

const TOTP = "/api/v1/auth/mfa/totp";
const PHONE = "/api/v1/auth/mfa/phone/start";
const PASSKEY = "/api/v1/auth/mfa/passkey/register/begin";

function randomPhone() {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
}

interface Owner {
  email: string;
  session: SessionBody;
}

const stepUp = (code: string) => ({ "x-step-up-code": code });

/** A verified phone as the account's first factor (no step-up needed). */
async function firstFactorPhone(owner: Owner) {
  const phone = randomPhone();
  const t = owner.session.access_token;
  expect((await call("POST", PHONE, { token: t, body: { phone } })).status).toBe(202);
  const code = await latestCode(phone, "phone_verify");
  expect((await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code } })).status).toBe(
    200,
  );
  return phone;
}

/** Finishes an open passkey ceremony with a software authenticator. */
async function finishPasskey(token: string, begin: Response) {
  const { publicKey } = await json<{ publicKey: { challenge: string } }>(begin);
  const credential = await (await softAuthenticator()).attest({
    challenge: publicKey.challenge,
    origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
    rpId: e.WEBAUTHN_RP_ID,
  });
  return call("POST", "/api/v1/auth/mfa/passkey/register/finish", { token, body: { credential } });
}

async function count(sql: string, ...args: string[]): Promise<number> {
  const row = await e.DB.prepare(sql)
    .bind(...args)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** What an enrollment could have stored for the account: pending TOTP, phone codes, ceremonies, factors. */
async function enrollmentState(userId: string) {
  return {
    totp: await count("SELECT COUNT(*) AS n FROM totp_factors WHERE user_id = ?", userId),
    phoneCodes: await count(
      "SELECT COUNT(*) AS n FROM otp_codes WHERE user_id = ? AND purpose = 'phone_verify'",
      userId,
    ),
    phones: await count("SELECT COUNT(*) AS n FROM phones WHERE user_id = ?", userId),
    ceremonies: await count("SELECT COUNT(*) AS n FROM passkey_ceremonies WHERE user_id = ?", userId),
    passkeys: await count("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ?", userId),
  };
}

async function notices(to: string, purpose: string) {
  return (await outbox(to)).filter((m) => m.purpose === purpose);
}

function undoToken(link: string | null): string {
  expect(link).toContain("/auth/disown?token=");
  return new URL(link!).searchParams.get("token")!;
}

function disown(token: string) {
  return call("POST", "/api/v1/auth/disown", { body: { token }, ip: freshIp() });
}

function refresh(session: SessionBody) {
  return call("POST", "/api/v1/auth/refresh", {
    body: { refresh_token: session.refresh_token },
    ip: freshIp(),
  });
}

/** The three ceremonies, each on an account whose existing factor is not of the same kind. */
const CEREMONIES = [
  {
    name: "TOTP (POST /auth/mfa/totp)",
    path: TOTP,
    body: undefined as unknown,
    // The account's factor: a phone (a confirmed TOTP would answer 409 before any step-up).
    victim: async () => {
      const owner = await signupVerified();
      await firstFactorPhone(owner);
      return owner;
    },
  },
  {
    name: "phone (POST /auth/mfa/phone/start)",
    path: PHONE,
    body: { phone: randomPhone() },
    victim: staffUser,
  },
  {
    name: "passkey (POST /auth/mfa/passkey/register/begin)",
    path: PASSKEY,
    body: {},
    victim: staffUser,
  },
];

describe.each(CEREMONIES)("adding a second factor: $name", ({ path, body, victim }) => {
  it("with only the access token: 428 STEP_UP_REQUIRED, the code goes to the primary, nothing stored", async () => {
    const owner = await victim();
    const before = await enrollmentState(owner.session.user.id);
    const p = await problem(await call("POST", path, { token: owner.session.access_token, body }));
    expect(p).toMatchObject({ status: 428, code: "STEP_UP_REQUIRED" });
    expect(p.body.details).toMatchObject({ channel: "email" });
    expect(String((p.body.details as { sent_to: string }).sent_to)).toContain("***");
    expect(await latestCode(owner.email, "sensitive_action")).toMatch(/^\d{6}$/);
    expect(await enrollmentState(owner.session.user.id)).toEqual(before);
  });

  it("with a wrong code: 401 CODE_INVALID, nothing stored", async () => {
    const owner = await victim();
    const t = owner.session.access_token;
    const before = await enrollmentState(owner.session.user.id);
    await call("POST", path, { token: t, body });
    const code = await latestCode(owner.email, "sensitive_action");
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await problem(await call("POST", path, { token: t, body, headers: stepUp(wrong) }))).toMatchObject(
      {
        status: 401,
        code: "CODE_INVALID",
      },
    );
    expect(await enrollmentState(owner.session.user.id)).toEqual(before);
  });

  it("503 STEP_UP_UNAVAILABLE when the code cannot be sent; nothing stored", async () => {
    const owner = await victim();
    const before = await enrollmentState(owner.session.user.id);
    // An SMS provider is configured (issue 36: without one the phone routes answer 501 SMS_DISABLED first).
    const down = {
      DEV_OUTBOX: "false",
      MAIL_PROVIDER_URL: "https://mail-down.test/send",
      SMS_PROVIDER_URL: "https://mail-down.test/sms",
    };
    const res = await callWith(down, "POST", path, { token: owner.session.access_token, body });
    expect(await problem(res)).toMatchObject({ status: 503, code: "STEP_UP_UNAVAILABLE" });
    expect(await enrollmentState(owner.session.user.id)).toEqual(before);
  });

  it("a code of another operation is refused (the proof is bound to this ceremony)", async () => {
    const owner = await victim();
    const t = owner.session.access_token;
    await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", { token: t });
    const other = await latestCode(owner.email, "sensitive_action");
    expect(await problem(await call("POST", path, { token: t, body, headers: stepUp(other) }))).toMatchObject(
      {
        status: 401,
        code: "CODE_INVALID",
      },
    );
  });
});

describe("with the right step-up code each ceremony completes, its confirm asking for no second code", () => {
  it("TOTP: 200 with the code, confirm without one; the owner is told, with an undo", async () => {
    const owner = await signupVerified();
    await firstFactorPhone(owner);
    const t = owner.session.access_token;
    await call("POST", TOTP, { token: t });
    const code = await latestCode(owner.email, "sensitive_action");
    const begin = await call("POST", TOTP, { token: t, headers: stepUp(code) });
    expect(begin.status).toBe(200);
    const { secret } = await json<{ secret: string }>(begin);
    const confirm = await call("POST", `${TOTP}/confirm`, {
      token: t,
      body: { code: await totpCode(secret) },
    });
    expect(confirm.status).toBe(200);
    expect((await json<{ recovery_codes: string[] }>(confirm)).recovery_codes).toHaveLength(10);
    const [notice] = await notices(owner.email, "factor_added_notice");
    expect(notice?.subject).toContain("authenticator app");
    undoToken(notice!.link);
  });

  it("phone: 202 with the code, confirm without one; the owner is told", async () => {
    const owner = await staffUser();
    const t = owner.session.access_token;
    const phone = randomPhone();
    await call("POST", PHONE, { token: t, body: { phone } });
    const code = await latestCode(owner.email, "sensitive_action");
    expect((await call("POST", PHONE, { token: t, body: { phone }, headers: stepUp(code) })).status).toBe(
      202,
    );
    const sms = await latestCode(phone, "phone_verify");
    expect(
      (await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms } })).status,
    ).toBe(200);
    const added = await notices(owner.email, "factor_added_notice");
    expect(added.map((m) => m.subject)).toContain("A phone was added to your account");
  });

  it("passkey: 200 with the code, finish without one; the owner is told", async () => {
    const owner = await staffUser();
    const t = owner.session.access_token;
    await call("POST", PASSKEY, { token: t, body: {} });
    const code = await latestCode(owner.email, "sensitive_action");
    const begin = await call("POST", PASSKEY, { token: t, body: {}, headers: stepUp(code) });
    expect(begin.status).toBe(200);
    expect((await finishPasskey(t, begin)).status).toBe(201);
    const added = await notices(owner.email, "factor_added_notice");
    expect(added.map((m) => m.subject)).toContain("A passkey was added to your account");
  });
});

describe("a first TOTP or phone costs only the access token (a passkey never does), and the owner is still told", () => {
  it("TOTP or phone on an account without a factor: no 428; a first passkey: 428, then with the code; a notice for each", async () => {
    const a = await signupVerified();
    expect((await call("POST", TOTP, { token: a.session.access_token })).status).toBe(200);
    const b = await signupVerified();
    await firstFactorPhone(b);
    expect((await notices(b.email, "factor_added_notice")).length).toBe(1);
    const c = await signupVerified();
    expect((await call("POST", PASSKEY, { token: c.session.access_token, body: {} })).status).toBe(428);
    const begin = await call("POST", PASSKEY, {
      token: c.session.access_token,
      body: {},
      headers: stepUp(await latestCode(c.email, "sensitive_action")),
    });
    expect(begin.status).toBe(200);
    expect((await finishPasskey(c.session.access_token, begin)).status).toBe(201);
    expect((await notices(c.email, "factor_added_notice")).length).toBe(1);
    const d = await staffUser();
    const totp = await notices(d.email, "factor_added_notice");
    expect(totp).toHaveLength(1);
    expect(totp[0]!.subject).toContain("authenticator app");
  });

  it("a ceremony opened without the proof cannot complete once the account has a factor", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const { secret } = await json<{ secret: string }>(await call("POST", TOTP, { token: t }));
    const phone = randomPhone();
    await call("POST", PHONE, { token: t, body: { phone } });
    // The phone is confirmed first: the account now has a factor.
    const sms = await latestCode(phone, "phone_verify");
    expect(
      (await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms } })).status,
    ).toBe(200);
    expect(
      await problem(
        await call("POST", `${TOTP}/confirm`, { token: t, body: { code: await totpCode(secret) } }),
      ),
    ).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const state = await enrollmentState(owner.session.user.id);
    expect(state).toMatchObject({ totp: 0, passkeys: 0, phones: 1 });
  });

  it("a second phone started without the proof cannot replace the first", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const other = randomPhone();
    await call("POST", PHONE, { token: t, body: { phone: other } });
    const first = await firstFactorPhone(owner);
    // The pending verification of `other` died when `first` was started; nothing replaces `first`.
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/phone/confirm", {
          token: t,
          body: { code: await latestCode(other, "phone_verify") },
        }),
      ),
    ).toMatchObject({ status: 404 });
    const row = await e.DB.prepare("SELECT e164 FROM phones WHERE user_id = ?")
      .bind(owner.session.user.id)
      .first<{ e164: string }>();
    expect(row?.e164).toBe(first);
  });
});

describe("the owner's one-click undo (POST /auth/disown)", () => {
  it("removes a planted passkey, voids the recovery pool generated since, ends every session (refresh fails)", async () => {
    const owner = await staffUser();
    const t = owner.session.access_token;
    await call("POST", PASSKEY, { token: t, body: {} });
    const begin = await call("POST", PASSKEY, {
      token: t,
      body: {},
      headers: stepUp(await latestCode(owner.email, "sensitive_action")),
    });
    const stored = await json<{ id: string }>(await finishPasskey(t, begin));
    const link = (await notices(owner.email, "factor_added_notice")).find((m) =>
      m.subject.includes("passkey"),
    );
    const token = undoToken(link!.link);

    // Tampered: refused, nothing changed.
    const tampered = `${token.slice(0, -1)}${token.at(-1) === "0" ? "1" : "0"}`;
    expect(await problem(await disown(tampered))).toMatchObject({ status: 401, code: "CODE_INVALID" });
    // An undo link is not an address removal link, and the other way round.
    expect(
      await problem(await call("POST", "/api/v1/auth/emails/disown", { body: { token }, ip: freshIp() })),
    ).toMatchObject({ status: 401, code: "CODE_INVALID" });
    expect((await call("GET", "/api/v1/auth/mfa/passkey", { token: t })).status).toBe(200);

    expect((await disown(token)).status).toBe(204);
    expect(await count("SELECT COUNT(*) AS n FROM passkeys WHERE id = ?", stored.id)).toBe(0);
    expect((await call("GET", "/api/v1/auth/mfa/methods", { token: t })).status).toBe(401);
    expect((await refresh(owner.session)).status).toBe(401);
    // The TOTP the owner had before stays; its recovery codes predate the passkey and stay too.
    expect(
      await count("SELECT COUNT(*) AS n FROM totp_factors WHERE user_id = ?", owner.session.user.id),
    ).toBe(1);
    expect(
      await count("SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ?", owner.session.user.id),
    ).toBe(10);
    // A second click: 204, nothing more.
    expect((await disown(token)).status).toBe(204);
  });

  it("removes a TOTP with the recovery codes that came with it; a login with them fails", async () => {
    const owner = await staffUser();
    const [notice] = await notices(owner.email, "factor_added_notice");
    expect(notice?.subject).toContain("with new recovery codes");
    expect((await disown(undoToken(notice!.link))).status).toBe(204);
    const userId = owner.session.user.id;
    expect(await count("SELECT COUNT(*) AS n FROM totp_factors WHERE user_id = ?", userId)).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ?", userId)).toBe(0);
    expect((await refresh(owner.session)).status).toBe(401);
  });

  it("voids a generated recovery pool (its own notice) and ends every session", async () => {
    const owner = await staffUser();
    const t = owner.session.access_token;
    await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", { token: t });
    const code = await latestCode(owner.email, "sensitive_action");
    const res = await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", {
      token: t,
      headers: stepUp(code),
    });
    expect(res.status).toBe(200);
    const [notice] = await notices(owner.email, "recovery_codes_notice");
    expect(notice?.subject).toContain("recovery codes");
    expect((await disown(undoToken(notice!.link))).status).toBe(204);
    expect(
      await count("SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ?", owner.session.user.id),
    ).toBe(0);
    // The TOTP predates the pool: it stays.
    expect(
      await count("SELECT COUNT(*) AS n FROM totp_factors WHERE user_id = ?", owner.session.user.id),
    ).toBe(1);
    expect((await refresh(owner.session)).status).toBe(401);
  });

  it("removes a planted phone; its sessions end", async () => {
    const owner = await staffUser();
    const t = owner.session.access_token;
    const phone = randomPhone();
    await call("POST", PHONE, { token: t, body: { phone } });
    const code = await latestCode(owner.email, "sensitive_action");
    await call("POST", PHONE, { token: t, body: { phone }, headers: stepUp(code) });
    const sms = await latestCode(phone, "phone_verify");
    await call("POST", "/api/v1/auth/mfa/phone/confirm", { token: t, body: { code: sms } });
    const notice = (await notices(owner.email, "factor_added_notice")).find((m) =>
      m.subject.includes("phone"),
    );
    expect((await disown(undoToken(notice!.link))).status).toBe(204);
    expect(await count("SELECT COUNT(*) AS n FROM phones WHERE user_id = ?", owner.session.user.id)).toBe(0);
    expect((await refresh(owner.session)).status).toBe(401);
  });

  it("another account's factor is untouchable: a token of account A naming B's passkey changes nothing", async () => {
    const a = await staffUser();
    const b = await signupVerified();
    const { passkey: theirs } = await registerPasskey(b);
    const forged = await signDisownToken(e.OTP_PEPPER, {
      kind: "passkey",
      subjectId: theirs.id,
      userId: a.session.user.id,
    });
    expect((await disown(forged)).status).toBe(204);
    expect(await count("SELECT COUNT(*) AS n FROM passkeys WHERE id = ?", theirs.id)).toBe(1);
    expect((await refresh(b.session)).status).toBe(200);
    expect((await refresh(a.session)).status).toBe(200);
    // B's own link, with A's account swapped in, no longer verifies.
    const link = (await notices(b.email, "factor_added_notice"))[0]!.link;
    const parts = undoToken(link).split(".");
    parts[2] = a.session.user.id;
    expect(await problem(await disown(parts.join(".")))).toMatchObject({ status: 401, code: "CODE_INVALID" });
  });
});
