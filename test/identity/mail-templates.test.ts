/**
 * One template per message kind, in English and Brazilian Portuguese, with an HTML body and its plain-text
 * alternative (issue 36). Every user-chosen value (names, site names, addresses) is escaped in the HTML.
 */
import { describe, expect, it } from "vitest";
import {
  LOCALES,
  localeFromAcceptLanguage,
  type MessagePurpose,
  type OutboundMessage,
  type TemplateVars,
} from "../../src/identity/messaging/messages";
import { renderMessage } from "../../src/identity/messaging/render";

/** A value a user chose, carrying markup and a quote. */
const EVIL = `<script>alert("x")</script>"onmouseover="alert(1)`;
const ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;onmouseover=&quot;alert(1)";

const passkey = { name: EVIL, created_at: "2026-11-01T10:00:00.000Z" };

/** Every kind, its user-chosen values set to EVIL. */
const VARS: { [P in MessagePurpose]: TemplateVars[P] } = {
  email_verify: {},
  email_add: {},
  sensitive_action: {},
  magic_link: {},
  login_mfa: {},
  password_reset: {},
  invitation: { org: EVIL, site: EVIL, inviter: EVIL, role: "editor" },
  phone_verify: {},
  signup_notice: {},
  email_added_notice: { address: EVIL },
  email_verified_notice: { address: EVIL, usableAt: "2026-11-30T10:00:00.000Z" },
  password_reset_notice: {
    at: "2026-11-28T10:00:00.000Z",
    via: EVIL,
    ended: [passkey],
    left: { totp: true, phone: "+55*****4321", passkeys: [passkey], recoveryCodes: 3 },
  },
  factor_added_notice: { kind: "passkey", detail: EVIL, alsoRecovery: true },
  recovery_codes_notice: {},
  sso_link: {},
  sso_notice: { kind: "changed", owner: EVIL, undoDays: 7 },
  account_restore: {},
  account_deletion_notice: {
    kind: "scheduled",
    eraseAfter: "2026-12-28T10:00:00.000Z",
    restorePage: "https://id.example.com/auth/account/restore",
    cancelOperation: "POST /api/v1/auth/account/deletion/cancel",
  },
  oauth_grant_notice: {
    client: EVIL,
    clientId: "https://agent.example/client.json",
    site: EVIL,
    scopes: ["posts:read"],
    undoDays: 7,
  },
  integrations_ended_notice: {
    who: EVIL,
    apiKeys: [{ id: "01JAAAAAAAAAAAAAAAAAAAAAAA", site_id: "01JBBBBBBBBBBBBBBBBBBBBBBB", name: EVIL }],
    webhooks: [{ id: "01JCCCCCCCCCCCCCCCCCCCCCCC", site_id: "01JBBBBBBBBBBBBBBBBBBBBBBB", url: EVIL }],
  },
};

/** Kinds whose message carries a user-chosen value. */
const WITH_USER_VALUES: MessagePurpose[] = [
  "invitation",
  "email_added_notice",
  "email_verified_notice",
  "password_reset_notice",
  "factor_added_notice",
  "sso_notice",
  "oauth_grant_notice",
  "integrations_ended_notice",
];

const message = (purpose: MessagePurpose, link = "https://id.example.com/x?a=1&b=2") =>
  ({ to: "ana@example.com", purpose, vars: VARS[purpose], code: "123456", link }) as OutboundMessage;

describe("every message kind renders in both languages", () => {
  for (const purpose of Object.keys(VARS) as MessagePurpose[]) {
    it(`${purpose}: subject, plain text and HTML in en and pt-BR, different words`, () => {
      const [en, pt] = LOCALES.map((locale) => renderMessage(message(purpose), locale));
      for (const m of [en!, pt!]) {
        expect(m.subject.length).toBeGreaterThan(0);
        expect(m.text.length).toBeGreaterThan(0);
        expect(m.html).toMatch(/^<!doctype html>/);
        expect(m.html).toContain(`lang="${m.locale}"`);
        expect(m.html).not.toMatch(/<script|<link|<img|src=/i);
      }
      expect(pt!.subject).not.toBe(en!.subject);
      expect(pt!.text).not.toBe(en!.text);
    });
  }
});

describe("user-chosen values are escaped in the HTML", () => {
  for (const purpose of WITH_USER_VALUES) {
    for (const locale of LOCALES) {
      it(`${purpose} (${locale}): <script> and " arrive as text`, () => {
        const m = renderMessage(message(purpose), locale);
        expect(m.text).toContain(EVIL);
        expect(m.html).toContain(ESCAPED);
        expect(m.html).not.toContain("<script");
        expect(m.html).not.toContain('"onmouseover');
      });
    }
  }

  it("the link is an attribute only when it is http(s), and escaped there", () => {
    const ok = renderMessage(message("magic_link"), "en");
    expect(ok.html).toContain('href="https://id.example.com/x?a=1&amp;b=2"');
    const bad = renderMessage(message("magic_link", 'javascript:alert("x")'), "en");
    expect(bad.html).not.toContain("href=");
    expect(bad.html).not.toContain('alert("x")');
  });

  it("an SMS is the plain text without the mail footer", () => {
    const sms = renderMessage(message("phone_verify"), "pt-BR", "sms");
    expect(sms.text).toBe("Seu código de verificação é 123456.");
  });
});

describe("Accept-Language → the locale of a new account", () => {
  it.each([
    ["pt-BR,pt;q=0.9,en;q=0.8", "pt-BR"],
    ["pt", "pt-BR"],
    ["pt-PT", "pt-BR"],
    ["fr-FR, pt;q=0.5", "pt-BR"],
    ["en-US,en;q=0.9,pt-BR;q=0.8", "en"],
    ["en;q=0.5, pt-BR;q=0.9", "pt-BR"],
    ["de-DE", "en"],
    ["pt;q=0", "en"],
    ["", "en"],
  ])("%j → %s", (header, locale) => {
    expect(localeFromAcceptLanguage(header)).toBe(locale);
  });
});
