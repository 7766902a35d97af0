/**
 * The recipient's language (issue 36): an account's `locale` from sign-up's Accept-Language, changed by
 * PATCH /api/v1/auth/me; an invitation to an address without an account goes in the inviter's language.
 * The outbox keeps each mail's HTML beside its plain text. Without an SMS provider, phone routes are 501.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  latestCode,
  outbox,
  problem,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

interface Me {
  locale: string;
  display_name: string | null;
}

/** The newest stored message of `purpose` to `to`, with both bodies. */
async function stored(to: string, purpose: string) {
  return e.DB.prepare(
    "SELECT subject, body, html FROM outbox_messages WHERE to_address = ? AND purpose = ? ORDER BY id DESC LIMIT 1",
  )
    .bind(to, purpose)
    .first<{ subject: string; body: string; html: string | null }>();
}

/** Signs up with an Accept-Language and confirms the address. */
async function signupWith(acceptLanguage: string) {
  const email = freshEmail("locale");
  const ip = freshIp();
  const headers = { "accept-language": acceptLanguage };
  expect(
    (await call("POST", "/api/v1/auth/signup", { body: { email, password: GOOD_PASSWORD }, ip, headers }))
      .status,
  ).toBe(202);
  const code = await latestCode(email, "email_verify");
  const res = await call("POST", "/api/v1/auth/email/verify/confirm", { body: { email, code }, ip });
  const session = await json<{ access_token: string }>(res);
  return { email, token: session.access_token };
}

describe("an account's locale", () => {
  it("sign-up with Accept-Language pt-PT: the account writes in pt-BR, its code mail in Portuguese (HTML and text)", async () => {
    const { email, token } = await signupWith("pt-PT,pt;q=0.9,en;q=0.5");
    const verify = await stored(email, "email_verify");
    expect(verify?.subject).toBe("Confirme seu endereço de e-mail");
    expect(verify?.body).toContain("Seu código de confirmação é");
    expect(verify?.html).toContain('<html lang="pt-BR">');
    expect((await json<Me>(await call("GET", "/api/v1/auth/me", { token }))).locale).toBe("pt-BR");
  });

  it("sign-up without a Portuguese Accept-Language writes in English", async () => {
    const { email, token } = await signupWith("de-DE,en;q=0.5");
    expect((await stored(email, "email_verify"))?.subject).toBe("Confirm your e-mail address");
    expect((await json<Me>(await call("GET", "/api/v1/auth/me", { token }))).locale).toBe("en");
  });

  it("PATCH /api/v1/auth/me sets it; the next mail follows", async () => {
    const { email, session } = await signupVerified();
    const token = session.access_token;
    const res = await call("PATCH", "/api/v1/auth/me", { token, body: { locale: "pt-BR" } });
    expect(res.status).toBe(200);
    expect(await json<Me>(res)).toMatchObject({ locale: "pt-BR", display_name: null });
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    expect((await stored(email, "magic_link"))?.subject).toBe("Seu link de acesso");
    const both = await call("PATCH", "/api/v1/auth/me", {
      token,
      body: { locale: "en", display_name: "Ana" },
    });
    expect(await json<Me>(both)).toMatchObject({ locale: "en", display_name: "Ana" });
  });

  it.each([["fr"], ["pt-br"], ["PT-BR"], [""], [7]])(
    "400 BAD_REQUEST (the input rules) for %j, naming locale; nothing changed",
    async (locale) => {
      const { session } = await signupVerified();
      const token = session.access_token;
      const p = await problem(await call("PATCH", "/api/v1/auth/me", { token, body: { locale } }));
      expect(p).toMatchObject({ status: 400, code: "BAD_REQUEST" });
      expect(JSON.stringify(p.body)).toContain("locale");
      expect((await json<Me>(await call("GET", "/api/v1/auth/me", { token }))).locale).toBe("en");
    },
  );
});

describe("an invitation to an address without an account", () => {
  it("goes in the inviter's language, names the organization and the inviter, escaped in the HTML", async () => {
    const { token } = await signupWith("pt-BR");
    const evil = `<script>alert(1)</script>"x`;
    await call("PATCH", "/api/v1/auth/me", { token, body: { display_name: evil } });
    const org = await json<{ id: string }>(
      await call("POST", "/api/v1/auth/orgs", {
        token,
        body: { name: `Org ${evil}`, slug: `loc-${crypto.randomUUID().slice(0, 8)}` },
      }),
    );
    const invitee = freshEmail("invitee");
    expect(
      (
        await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
          token,
          body: { email: invitee, role: "member" },
        })
      ).status,
    ).toBe(202);
    const mail = await stored(invitee, "invitation");
    expect(mail?.subject).toBe(`Convite para Org ${evil}`);
    expect(mail?.body).toContain(`${evil} convidou você a participar de a organização Org ${evil}`);
    expect(mail?.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&quot;x");
    expect(mail?.html).not.toContain("<script");
    const [listed] = await outbox(invitee);
    expect(listed?.link).toContain("/auth/invitations/accept?token=");
  });

  it("an invitee who has an account reads it in their own language", async () => {
    const inviter = await signupVerified();
    const t = inviter.session.access_token;
    const org = await json<{ id: string }>(
      await call("POST", "/api/v1/auth/orgs", {
        token: t,
        body: { name: "English Org", slug: `loc-${crypto.randomUUID().slice(0, 8)}` },
      }),
    );
    const { email: invitee, token: inviteeToken } = await signupWith("pt-BR");
    // An address with an account is granted at once (201), with no mail; a site invitation needs a site,
    // so the language is checked on a resend of an invitation made before the invitee signed up.
    expect(inviteeToken).toBeTruthy();
    const fresh = freshEmail("later");
    const created = await json<{ invitation_id: string }>(
      await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
        token: t,
        body: { email: fresh, role: "member" },
      }),
    );
    expect((await stored(fresh, "invitation"))?.subject).toBe("You are invited to English Org");
    await e.DB.prepare("UPDATE invitations SET email = ? WHERE id = ?")
      .bind(invitee, created.invitation_id)
      .run();
    const resent = await call(
      "POST",
      `/api/v1/auth/orgs/${org.id}/invitations/${created.invitation_id}/resend`,
      {
        token: t,
        ip: freshIp(),
      },
    );
    expect(resent.status).toBe(202);
    expect((await stored(invitee, "invitation"))?.subject).toBe("Convite para English Org");
  });
});

describe("SMS without a provider", () => {
  it("phone verification answers 501 SMS_DISABLED when neither a provider nor the dev outbox is configured", async () => {
    const { session } = await signupVerified();
    const off = { DEV_OUTBOX: "false", SMS_ENABLED: "true", SMS_PROVIDER: "", SMS_PROVIDER_URL: "" };
    const res = await callWith(off, "POST", "/api/v1/auth/mfa/phone/start", {
      token: session.access_token,
      body: { phone: "+5511987654321" },
    });
    expect(await problem(res)).toMatchObject({ status: 501, code: "SMS_DISABLED" });
    const methods = await json<{ phone: { enabled: boolean } }>(
      await callWith(off, "GET", "/api/v1/auth/mfa/methods", { token: session.access_token }),
    );
    expect(methods.phone.enabled).toBe(false);
  });
});

describe("the account page", () => {
  it("has the language field, English and Portuguese (Brazil), saved by its script through PATCH /me", async () => {
    const res = await call("GET", "/auth/account");
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<select id="f-locale" name="locale"');
    expect(page).toContain('<option value="en">English</option>');
    expect(page).toContain('<option value="pt-BR" lang="pt-BR">Português (Brasil)</option>');
  });
});
