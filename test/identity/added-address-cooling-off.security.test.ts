/**
 * Issue 9, item 1: with only a victim's access token, an attacker adds and proves an address of their
 * own (no step-up, by the spec), then signs in or resets the password through it. An address proven
 * through POST /auth/emails/verify is usable for sign-in and recovery only after the cooling-off (72 h),
 * unless the owner promotes it to primary with a code sent to the current primary.
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
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

interface EmailItem {
  id: string;
  email: string;
  verified: boolean;
  primary: boolean;
  usable_from?: string;
}

async function addAndVerify(token: string, email: string): Promise<EmailItem> {
  const added = await call("POST", "/api/v1/auth/emails", { token, body: { email }, ip: freshIp() });
  expect(added.status).toBe(202);
  const code = await latestCode(email, "email_add");
  const res = await call("POST", "/api/v1/auth/emails/verify", {
    token,
    body: { email, code },
    ip: freshIp(),
  });
  expect(res.status).toBe(200);
  return json<EmailItem>(res);
}

function requestMagicLink(email: string) {
  return call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
}

function loginStart(email: string, password: string) {
  return call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() });
}

async function endCoolingOff(address: string) {
  await e.DB.prepare("UPDATE email_addresses SET usable_at = ? WHERE address = ?")
    .bind(new Date(Date.now() - 1000).toISOString(), address)
    .run();
}

describe("an address added through POST /auth/emails (cooling-off)", () => {
  it("the stolen-token chain (add, verify, magic link, reset, password login) gives the attacker nothing", async () => {
    const victim = await signupVerified();
    const attacker = freshEmail("attacker");
    await addAndVerify(victim.session.access_token, attacker);

    const magic = await requestMagicLink(attacker);
    const magicUnknown = await requestMagicLink(freshEmail("ghost"));
    expect(magic.status).toBe(202);
    expect(await magic.text()).toBe(await magicUnknown.text());

    const reset = await call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: attacker },
      ip: freshIp(),
    });
    const resetUnknown = await call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: freshEmail("ghost") },
      ip: freshIp(),
    });
    expect(reset.status).toBe(202);
    expect(await reset.text()).toBe(await resetUnknown.text());
    expect((await outbox(attacker)).map((m) => m.purpose)).toEqual(["email_add"]);

    // Even the right password does not sign in through the cooling address: the same 401 as a stranger's.
    const login = await problem(await loginStart(attacker, victim.password));
    const loginUnknown = await problem(await loginStart(freshEmail("ghost"), victim.password));
    expect(login).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
    expect(login.body).toEqual(loginUnknown.body);
  });

  it("GET /auth/emails and the verify answer show usable_from (72 hours after the proof) while cooling off", async () => {
    const victim = await signupVerified();
    const before = Date.now();
    const verified = await addAndVerify(victim.session.access_token, freshEmail("extra"));
    const after = Date.now();
    const coolingOff = 72 * 3600 * 1000;
    const from = Date.parse(verified.usable_from ?? "");
    expect(from).toBeGreaterThanOrEqual(before + coolingOff - 1000);
    expect(from).toBeLessThanOrEqual(after + coolingOff + 1000);
    const list = await json<{ items: EmailItem[] }>(
      await call("GET", "/api/v1/auth/emails", { token: victim.session.access_token }),
    );
    const byAddress = new Map(list.items.map((i) => [i.email, i]));
    expect(byAddress.get(verified.email)?.usable_from).toBe(verified.usable_from);
    expect(byAddress.get(victim.email)).not.toHaveProperty("usable_from");
  });

  it("once the cooling-off is over the address signs in by magic link and by password", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    await addAndVerify(owner.session.access_token, extra);
    await endCoolingOff(extra);
    expect((await requestMagicLink(extra)).status).toBe(202);
    const code = await latestCode(extra, "magic_link");
    const res = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email: extra, code },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    expect((await json<SessionBody>(res)).user.id).toBe(owner.session.user.id);
    // Past the password: the account has no TOTP yet, which only an owner of the password may learn.
    expect(await problem(await loginStart(extra, owner.password))).toMatchObject({
      status: 428,
      code: "MFA_NOT_ENROLLED",
    });
  });

  it("promoting it to primary (code sent to the current primary) ends the cooling-off at once", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const extra = await addAndVerify(t, freshEmail("extra"));
    expect((await call("POST", `/api/v1/auth/emails/${extra.id}/primary`, { token: t })).status).toBe(428);
    const code = await latestCode(owner.email, "sensitive_action");
    const promoted = await call("POST", `/api/v1/auth/emails/${extra.id}/primary`, {
      token: t,
      body: { code },
    });
    expect(promoted.status).toBe(200);
    expect(await json<EmailItem>(promoted)).not.toHaveProperty("usable_from");
    await requestMagicLink(extra.email);
    expect((await outbox(extra.email)).map((m) => m.purpose)).toContain("magic_link");
  });

  it("a signup with a cooling address still mails its owner the existing-account notice (no second account)", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    await addAndVerify(owner.session.access_token, extra);
    const res = await call("POST", "/api/v1/auth/signup", {
      body: { email: extra, password: "another-long-passphrase-77" },
      ip: freshIp(),
    });
    expect(res.status).toBe(202);
    expect((await outbox(extra)).map((m) => m.purpose)).toEqual(["signup_notice", "email_add"]);
  });
});
