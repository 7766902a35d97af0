/**
 * What identity sends by e-mail or SMS: the message the mailer, the SMS sender and the dev outbox share.
 * A composer names the kind (`purpose`), the recipient and the values the kind's template needs
 * (`vars`); the words, in the recipient's language, with an HTML body and its plain-text alternative,
 * come from that kind's template (templates/, rendered by render.ts).
 */

/** The languages identity writes in: an account's `locale`. */
export const LOCALES = ["en", "pt-BR"] as const;
export type Locale = (typeof LOCALES)[number];

/** A passkey as the notices name it. */
export interface PasskeyRef {
  name: string | null;
  created_at: string;
}

/** What a password-reset notice lists as still on the account. */
export interface FactorsLeftRef {
  totp: boolean;
  /** Masked already (`+5***1234`). */
  phone: string | null;
  passkeys: PasskeyRef[];
  recoveryCodes: number;
}

/** Kinds of single sign-on notices to an organization's owners. */
export type SsoNoticeKind = "set" | "changed" | "removed" | "break_glass" | "undone";

/** The values each kind's template uses, besides the message's `code` and `link`. */
export interface TemplateVars {
  email_verify: Record<string, never>;
  email_add: Record<string, never>;
  sensitive_action: Record<string, never>;
  magic_link: Record<string, never>;
  login_mfa: Record<string, never>;
  password_reset: Record<string, never>;
  /** `org`: the organization's name; `site`: the site's name (site invitations); `inviter`: who invited. */
  invitation: { org: string; site?: string; inviter?: string; role: string };
  phone_verify: Record<string, never>;
  signup_notice: Record<string, never>;
  email_added_notice: { address: string };
  email_verified_notice: { address: string; usableAt: string };
  password_reset_notice: { at: string; via: string; ended: PasskeyRef[]; left: FactorsLeftRef };
  /** `detail`: the masked phone or the passkey's name. */
  factor_added_notice: { kind: "totp" | "phone" | "passkey"; detail?: string; alsoRecovery: boolean };
  recovery_codes_notice: Record<string, never>;
  sso_link: Record<string, never>;
  /** `owner`: the owner's name the notice goes to; `undoDays`: the life of the undo link (the message's link), when any. */
  sso_notice: { kind: SsoNoticeKind; owner: string; undoDays?: number };
  account_restore: Record<string, never>;
  account_deletion_notice:
    | { kind: "scheduled"; eraseAfter: string; restorePage: string; cancelOperation: string }
    | { kind: "cancelled" }
    | { kind: "erased" };
  /**
   * An MCP agent's grant approved (issue 37): `client` the agent's self-chosen name, `clientId` its id, `site`
   * the site's name, `scopes` what it may do; the message's link revokes it (`undoDays` its life).
   */
  oauth_grant_notice: { client: string; clientId: string; site: string; scopes: string[]; undoDays: number };
  /** `who`: the former administrator (address), absent when unknown. */
  integrations_ended_notice: {
    who?: string;
    apiKeys: { id: string; site_id: string; name: string }[];
    webhooks: { id: string; site_id: string; url: string }[];
  };
}

/** The `purpose` of a message, as the dev outbox lists it. */
export type MessagePurpose = keyof TemplateVars;

interface MessageOf<P extends MessagePurpose> {
  to: string;
  purpose: P;
  /** The one-time code the message carries (the dev outbox lists it). */
  code?: string;
  /** The link the message carries (the dev outbox lists it). */
  link?: string;
  /**
   * The language when the recipient may have no account (an invitation: the inviter's); otherwise the
   * recipient's account `locale` is used, found by the address.
   */
  locale?: Locale;
}

/** A message to send; `vars` may be left out for kinds that need none. */
export type OutboundMessage = {
  [P in MessagePurpose]: MessageOf<P> &
    (TemplateVars[P] extends Record<string, never> ? { vars?: TemplateVars[P] } : { vars: TemplateVars[P] });
}[MessagePurpose];

/** Accept-Language → the locale of a new account: any Portuguese (`pt`, `pt-BR`, `pt-PT`) is pt-BR, else en. */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale {
  if (!header) return "en";
  const ranges = header
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.tag && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranges) {
    if (tag === "pt" || tag.startsWith("pt-")) return "pt-BR";
    if (tag === "en" || tag.startsWith("en-")) return "en";
  }
  return "en";
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}
