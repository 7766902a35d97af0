/**
 * Issue 18 item 1, replayed end to end through the gateway as the attacker tried it: with a victim's
 * stolen access token (and the password phished), plant a second factor, then sign in with it. The plant
 * fails at the step-up; where the token may enrol (the account's first factor), the owner's notice
 * arrives at once and its one-click undo removes the factor and throws the thief out.
 */
import { describe, expect, it } from "vitest";
import {
  call,
  enrolTotp,
  outboxCode,
  PASSWORD,
  totpFor,
  uniqueEmail,
  verifiedUser,
} from "../support/platform";

interface OutboxMessage {
  purpose: string;
  subject: string;
  link: string | null;
}

async function notices(to: string, purpose: string): Promise<OutboxMessage[]> {
  const res = await call<{ messages: OutboxMessage[] }>(
    "GET",
    `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`,
  );
  return res.body.messages.filter((m) => m.purpose === purpose);
}

/** The owner's account with TOTP as its factor (enrolled by the owner, the first factor: no step-up). */
async function ownerWithTotp() {
  const email = uniqueEmail("victim");
  const session = await verifiedUser(email);
  const totp = await enrolTotp(session.access_token);
  return { email, session, totp };
}

describe("a stolen access token tries to plant its own second factor (through the gateway)", () => {
  it("fails at the step-up for a phone and a passkey; a guessed code is refused; the attacker cannot sign in", async () => {
    const victim = await ownerWithTotp();
    const stolen = victim.session.access_token;

    const phone = await call<{ code: string; details: { channel: string; sent_to: string } }>(
      "POST",
      "/api/v1/auth/mfa/phone/start",
      { token: stolen, body: { phone: "+15550100199" } },
    );
    expect(phone.status).toBe(428);
    expect(phone.body.code).toBe("STEP_UP_REQUIRED");
    expect(phone.body.details.channel).toBe("email");
    expect(phone.body.details.sent_to).not.toContain(victim.email.split("@")[0]);

    const guessed = await call<{ code: string }>("POST", "/api/v1/auth/mfa/phone/start", {
      token: stolen,
      body: { phone: "+15550100199" },
      headers: { "x-step-up-code": "000000" },
    });
    expect(guessed.status).toBe(401);
    expect(guessed.body.code).toBe("CODE_INVALID");

    const passkey = await call<{ code: string }>("POST", "/api/v1/auth/mfa/passkey/register/begin", {
      token: stolen,
      body: {},
    });
    expect(passkey.status).toBe(428);
    expect(passkey.body.code).toBe("STEP_UP_REQUIRED");

    // Nothing planted: the password opens a challenge offering only the owner's own factors.
    const start = await call<{ methods: string[] }>("POST", "/api/v1/auth/login/start", {
      body: { email: victim.email, password: PASSWORD },
    });
    expect(start.status).toBe(200);
    expect(start.body.methods).not.toContain("sms");
    expect(start.body.methods).not.toContain("passkey");
  });

  it("the first factor the stolen token may plant is told to the owner at once; the undo removes it and ends the thief's session", async () => {
    const email = uniqueEmail("nofactor");
    const victim = await verifiedUser(email);
    const stolen = victim.access_token;

    // The thief enrols TOTP (the account had no factor: the access token alone may turn 2FA on).
    const enrol = await call<{ secret: string }>("POST", "/api/v1/auth/mfa/totp", { token: stolen });
    expect(enrol.status).toBe(200);
    const planted = totpFor(enrol.body.secret);
    const confirm = await call<{ recovery_codes: string[] }>("POST", "/api/v1/auth/mfa/totp/confirm", {
      token: stolen,
      body: { code: planted.generate() },
    });
    expect(confirm.status).toBe(200);

    // The owner's mailbox has the notice, with a one-click undo on this origin.
    const [notice] = await notices(email, "factor_added_notice");
    expect(notice?.subject).toContain("authenticator app");
    const link = new URL(notice!.link!);
    expect(link.pathname).toBe("/auth/disown");
    const page = await call("GET", `${link.pathname}${link.search}`);
    expect(page.status).toBe(200);

    const undo = await call("POST", "/api/v1/auth/disown", {
      body: { token: link.searchParams.get("token") },
    });
    expect(undo.status).toBe(204);

    // The thief's session is over, and the planted factor and its recovery codes open nothing.
    const refreshed = await call("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: victim.refresh_token },
    });
    expect(refreshed.status).toBe(401);
    const login = await call<{ code: string }>("POST", "/api/v1/auth/login", {
      body: { email, password: PASSWORD, totp_code: planted.generate({ timestamp: Date.now() + 30_000 }) },
    });
    expect(login.status).not.toBe(200);
    const start = await call<{ code: string }>("POST", "/api/v1/auth/login/start", {
      body: { email, password: PASSWORD },
    });
    expect(start.status).toBe(428);
    expect(start.body.code).toBe("MFA_NOT_ENROLLED");

    // The owner signs in again by e-mail: a fresh session works.
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email } });
    const code = await outboxCode(email, "magic_link");
    const back = await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code } });
    expect(back.status).toBe(200);
  });
});
